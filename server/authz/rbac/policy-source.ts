/**
 * Where the RBAC authorizer reads roles and bindings: in-memory maps that informers keep
 * current from the watch caches, so no request reads the store. Role bindings are indexed by
 * namespace, since a request only ever needs those of its own namespace.
 */
import type { KubeObject, ObjectStorage } from '../../../storage/objects/types';
import { startInformer } from '../../controllers/informer';

export interface PolicySource {
  clusterRole(name: string): KubeObject | undefined;
  role(namespace: string, name: string): KubeObject | undefined;
  clusterRoleBindings(): Iterable<KubeObject>;
  roleBindings(namespace: string): Iterable<KubeObject>;
}

export interface RbacStorages {
  readonly roles: ObjectStorage;
  readonly clusterRoles: ObjectStorage;
  readonly roleBindings: ObjectStorage;
  readonly clusterRoleBindings: ObjectStorage;
}

export interface InformedPolicySource extends PolicySource {
  /** Resolves once every informer has delivered its first list. */
  readonly synced: Promise<void>;
  stop(): void;
}

export function informedPolicySource(storages: RbacStorages): InformedPolicySource {
  const bindingsByNamespace = new Map<string, Map<string, KubeObject>>();
  const roles = startInformer(storages.roles, {});
  const clusterRoles = startInformer(storages.clusterRoles, {});
  const clusterRoleBindings = startInformer(storages.clusterRoleBindings, {});
  const roleBindings = startInformer(storages.roleBindings, {
    onUpsert(binding) {
      const namespace = String(binding.metadata.namespace);
      let bindings = bindingsByNamespace.get(namespace);
      if (bindings === undefined) bindingsByNamespace.set(namespace, (bindings = new Map()));
      bindings.set(String(binding.metadata.name), binding);
    },
    onDelete(binding) {
      const namespace = String(binding.metadata.namespace);
      const bindings = bindingsByNamespace.get(namespace);
      bindings?.delete(String(binding.metadata.name));
      if (bindings?.size === 0) bindingsByNamespace.delete(namespace);
    },
  });
  const informers = [roles, clusterRoles, clusterRoleBindings, roleBindings];
  return {
    synced: Promise.all(informers.map((informer) => informer.synced)).then(() => undefined),
    clusterRole: (name) => clusterRoles.objects.get(name),
    role: (namespace, name) => roles.objects.get(`${namespace}/${name}`),
    clusterRoleBindings: () => clusterRoleBindings.objects.values(),
    roleBindings: (namespace) => bindingsByNamespace.get(namespace)?.values() ?? [],
    stop() {
      for (const informer of informers) informer.stop();
    },
  };
}

/** A fixed set of objects, for checking a policy that is not stored (the bootstrap policy on its own, tests). */
export function staticPolicySource(objects: readonly KubeObject[]): PolicySource {
  const byKey = new Map<string, KubeObject>();
  const clusterRoleBindings: KubeObject[] = [];
  const roleBindings = new Map<string, KubeObject[]>();
  for (const object of objects) {
    const { name, namespace } = object.metadata;
    if (object.kind === 'ClusterRole' || object.kind === 'Role') byKey.set(`${object.kind}/${namespace ?? ''}/${name}`, object);
    else if (object.kind === 'ClusterRoleBinding') clusterRoleBindings.push(object);
    else if (object.kind === 'RoleBinding') roleBindings.set(String(namespace), [...(roleBindings.get(String(namespace)) ?? []), object]);
  }
  return {
    clusterRole: (name) => byKey.get(`ClusterRole//${name}`),
    role: (namespace, name) => byKey.get(`Role/${namespace}/${name}`),
    clusterRoleBindings: () => clusterRoleBindings,
    roleBindings: (namespace) => roleBindings.get(namespace) ?? [],
  };
}
