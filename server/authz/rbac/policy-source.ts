/**
 * Where the RBAC authorizer reads roles and bindings: in-memory maps that informers keep
 * current from the watch caches, so no request reads the store. Role bindings are indexed by
 * namespace, since a request only ever needs those of its own namespace, and all bindings by
 * the subjects they name, since a request only needs those that may name its user.
 */
import type { UserInfo } from '../../../api/user-info';
import type { ObjectStorage } from '../../../storage/objects/types';
import { startInformer } from '../../client/informer';
import { BindingIndex } from './binding-index';

import type { KubeObject } from '../../../api/objects';
export interface PolicySource {
  clusterRole(name: string): KubeObject | undefined;
  role(namespace: string, name: string): KubeObject | undefined;
  /** The ClusterRoleBindings that may name `user` (their subjects still to be matched). */
  clusterRoleBindingsFor(user: UserInfo): Iterable<KubeObject>;
  /** The RoleBindings of `namespace` that may name `user`. */
  roleBindingsFor(namespace: string, user: UserInfo): Iterable<KubeObject>;
}

/** RoleBindings by namespace, each namespace's indexed by subject. */
class NamespacedBindings {
  private readonly byNamespace = new Map<string, BindingIndex>();

  upsert(binding: KubeObject): void {
    const namespace = String(binding.metadata.namespace);
    let index = this.byNamespace.get(namespace);
    if (index === undefined) this.byNamespace.set(namespace, (index = new BindingIndex()));
    index.upsert(binding);
  }

  remove(binding: KubeObject): void {
    this.byNamespace.get(String(binding.metadata.namespace))?.remove(binding);
  }

  candidates(namespace: string, user: UserInfo): KubeObject[] {
    return this.byNamespace.get(namespace)?.candidates(user) ?? [];
  }
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
  const clusterBindings = new BindingIndex();
  const namespacedBindings = new NamespacedBindings();
  const roles = startInformer(storages.roles, {});
  const clusterRoles = startInformer(storages.clusterRoles, {});
  const clusterRoleBindings = startInformer(storages.clusterRoleBindings, {
    onUpsert: (binding) => clusterBindings.upsert(binding),
    onDelete: (binding) => clusterBindings.remove(binding),
  });
  const roleBindings = startInformer(storages.roleBindings, {
    onUpsert: (binding) => namespacedBindings.upsert(binding),
    onDelete: (binding) => namespacedBindings.remove(binding),
  });
  const informers = [roles, clusterRoles, clusterRoleBindings, roleBindings];
  return {
    synced: Promise.all(informers.map((informer) => informer.synced)).then(() => undefined),
    clusterRole: (name) => clusterRoles.objects.get(name),
    role: (namespace, name) => roles.objects.get(`${namespace}/${name}`),
    clusterRoleBindingsFor: (user) => clusterBindings.candidates(user),
    roleBindingsFor: (namespace, user) => namespacedBindings.candidates(namespace, user),
    stop() {
      for (const informer of informers) informer.stop();
    },
  };
}

/** A fixed set of objects, for checking a policy that is not stored (the bootstrap policy on its own, tests). */
export function staticPolicySource(objects: readonly KubeObject[]): PolicySource {
  const byKey = new Map<string, KubeObject>();
  const clusterBindings = new BindingIndex();
  const namespacedBindings = new NamespacedBindings();
  for (const object of objects) {
    const { name, namespace } = object.metadata;
    if (object.kind === 'ClusterRole' || object.kind === 'Role')
      byKey.set(`${object.kind}/${namespace ?? ''}/${name}`, object);
    else if (object.kind === 'ClusterRoleBinding') clusterBindings.upsert(object);
    else if (object.kind === 'RoleBinding') namespacedBindings.upsert(object);
  }
  return {
    clusterRole: (name) => byKey.get(`ClusterRole//${name}`),
    role: (namespace, name) => byKey.get(`Role/${namespace}/${name}`),
    clusterRoleBindingsFor: (user) => clusterBindings.candidates(user),
    roleBindingsFor: (namespace, user) => namespacedBindings.candidates(namespace, user),
  };
}
