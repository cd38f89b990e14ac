/**
 * The Node mode (1.34, with AuthorizeNodeWithSelectors, GA): a kubelet (`system:node:<name>` in
 * `system:nodes`) may read the secrets, config maps, claims, volumes, resource claims and
 * volume attachments its graph leads to, request tokens for its pods' service accounts, read
 * only its own Node object and list or watch only its own pods and resource slices, touch only
 * its own Lease and CSINode, and otherwise what the `system:node` role of the bootstrap policy
 * lists. Anyone else gets no opinion. The writes it allows broadly (pods, nodes, slices) the
 * NodeRestriction admission plugin narrows to the node's own objects.
 */
import type { UserInfo } from '../../../api/user-info';
import { bootstrapPolicy } from '../rbac/bootstrap-policy';
import { rulesOf, type PolicyRule } from '../rbac/policy';
import { ruleAllows } from '../rbac/rule-matching';
import { ALLOW, NO_OPINION, NO_RULES, type Attributes, type AuthorizationResult, type Authorizer } from '../types';
import type { ClusterObjectKind, NamespacedObjectKind, NodeGraph } from './node-graph';

export const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';
/** Where kubelets keep their heartbeat Leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const OWN_OBJECT_VERBS: ReadonlySet<string> = new Set(['get', 'create', 'update', 'patch', 'delete']);

/** The node a user speaks for, '' for a node identity without a name, undefined for anyone else. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

function noOpinion(reason: string): AuthorizationResult {
  return { decision: 'no-opinion', reason };
}

/** Whether a list, watch or deletecollection selects by `field` = the node, as the node's own reads must. */
function selectsNode(attributes: Attributes, field: string, node: string): boolean {
  return (attributes.fieldSelector ?? []).some(
    (requirement) => requirement.field === field && requirement.operator === '=' && requirement.value === node,
  );
}

export function nodeAuthorizer(graph: NodeGraph, featureEnabled: (gate: string) => boolean): Authorizer {
  const nodeRules: readonly PolicyRule[] = rulesOf(
    bootstrapPolicy(featureEnabled).clusterRoles.find((role) => role.metadata.name === 'system:node')!,
  );
  // Image credential providers and podCertificate volumes are why a kubelet reads service accounts.
  const readsServiceAccounts =
    featureEnabled('KubeletServiceAccountTokenForCredentialProviders') || featureEnabled('PodCertificateRequest');
  const byNodeRules = (attributes: Attributes): AuthorizationResult =>
    nodeRules.some((rule) => ruleAllows(attributes, rule)) ? ALLOW : NO_OPINION;

  const related = (
    node: string,
    kind: NamespacedObjectKind | ClusterObjectKind,
    attributes: Attributes,
  ): AuthorizationResult => {
    if (attributes.name === '') return noOpinion('No Object name found');
    const reached =
      kind === 'persistentvolumes' || kind === 'volumeattachments' || kind === 'resourceslices'
        ? graph.reachesClusterObject(node, kind, attributes.name)
        : graph.reaches(node, kind, attributes.namespace, attributes.name);
    return reached ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  };
  const getRelated = (
    node: string,
    kind: NamespacedObjectKind | ClusterObjectKind,
    attributes: Attributes,
  ): AuthorizationResult => {
    if (attributes.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (attributes.subresource !== '') return noOpinion('cannot get subresource');
    return related(node, kind, attributes);
  };
  const readRelated = (node: string, kind: NamespacedObjectKind, attributes: Attributes): AuthorizationResult => {
    if (!['get', 'list', 'watch'].includes(attributes.verb)) return noOpinion('can only read resources of this type');
    if (attributes.subresource !== '') return noOpinion('cannot read subresource');
    if (attributes.namespace === '') return noOpinion('can only read namespaced object of this type');
    return related(node, kind, attributes);
  };
  /** Leases and CSINodes: a node's own, by name (a create names it in the body, which NodeRestriction checks). */
  const ownObject = (node: string, attributes: Attributes, what: string): AuthorizationResult =>
    attributes.verb === 'create' || attributes.name === node
      ? ALLOW
      : noOpinion(`can only access ${what} with the same name as the requesting node`);

  const decide: Record<string, (node: string, attributes: Attributes) => AuthorizationResult> = {
    secrets: (node, attributes) => readRelated(node, 'secrets', attributes),
    configmaps: (node, attributes) => readRelated(node, 'configmaps', attributes),
    persistentvolumeclaims: (node, attributes) => {
      if (attributes.subresource !== 'status') return getRelated(node, 'persistentvolumeclaims', attributes);
      if (attributes.verb !== 'update' && attributes.verb !== 'patch')
        return noOpinion('can only get/update/patch this type');
      return related(node, 'persistentvolumeclaims', attributes);
    },
    persistentvolumes: (node, attributes) => getRelated(node, 'persistentvolumes', attributes),
    'resourceclaims.resource.k8s.io': (node, attributes) => getRelated(node, 'resourceclaims', attributes),
    'volumeattachments.storage.k8s.io': (node, attributes) => getRelated(node, 'volumeattachments', attributes),
    serviceaccounts: (node, attributes) => {
      if (attributes.verb === 'get' && attributes.subresource === '')
        return readsServiceAccounts
          ? readRelated(node, 'serviceaccounts', attributes)
          : noOpinion('not allowed to get service accounts');
      if (attributes.verb !== 'create' || attributes.name === '')
        return noOpinion('can only create tokens for individual service accounts');
      if (attributes.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
      return related(node, 'serviceaccounts', attributes);
    },
    'leases.coordination.k8s.io': (node, attributes) => {
      if (!OWN_OBJECT_VERBS.has(attributes.verb))
        return noOpinion('can only get, create, update, patch, or delete a node lease');
      if (attributes.namespace !== NODE_LEASE_NAMESPACE)
        return noOpinion(`can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
      return ownObject(node, attributes, 'node lease');
    },
    'csinodes.storage.k8s.io': (node, attributes) => {
      if (!OWN_OBJECT_VERBS.has(attributes.verb))
        return noOpinion('can only get, create, update, patch, or delete a CSINode');
      if (attributes.subresource !== '') return noOpinion('cannot authorize CSINode subresources');
      return ownObject(node, attributes, 'CSINode');
    },
    'resourceslices.resource.k8s.io': (node, attributes) => {
      if (attributes.subresource !== '') return noOpinion('cannot authorize ResourceSlice subresources');
      switch (attributes.verb) {
        case 'create':
          return ALLOW;
        case 'get':
        case 'update':
        case 'patch':
        case 'delete':
          return related(node, 'resourceslices', attributes);
        case 'list':
        case 'watch':
        case 'deletecollection':
          return selectsNode(attributes, 'spec.nodeName', node)
            ? ALLOW
            : noOpinion('can only list/watch/deletecollection resourceslices with nodeName field selector');
        default:
          return noOpinion(
            'only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection',
          );
      }
    },
    nodes: (node, attributes) => {
      const { verb, subresource, name } = attributes;
      if (subresource === '' && ['create', 'update', 'patch'].includes(verb)) return ALLOW;
      if (subresource === '' && ['get', 'list', 'watch'].includes(verb)) {
        // By name, not through the graph, so that a kubelet can look for its Node before making it.
        if (name === node) return ALLOW;
        return noOpinion(
          name === ''
            ? `node '${node}' cannot read all nodes, only its own Node object`
            : `node '${node}' cannot read '${name}', only its own Node object`,
        );
      }
      if (subresource === 'status' && (verb === 'update' || verb === 'patch')) return ALLOW;
      return NO_OPINION;
    },
    pods: (node, attributes) => {
      const { verb, subresource } = attributes;
      if (subresource === '') {
        if (verb === 'get') return getRelated(node, 'pods', attributes);
        if (verb === 'list' || verb === 'watch') {
          if (selectsNode(attributes, 'spec.nodeName', node)) return ALLOW;
          if (attributes.name !== '') return related(node, 'pods', attributes);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction keeps them to the node's own.
        if (verb === 'create' || verb === 'delete') return ALLOW;
      }
      if (subresource === 'status' && (verb === 'update' || verb === 'patch')) return ALLOW;
      if (subresource === 'eviction' && verb === 'create') return ALLOW;
      return NO_OPINION;
    },
  };

  return {
    authorize(attributes) {
      const node = nodeIdentity(attributes.user);
      if (node === undefined) return NO_OPINION;
      if (node === '') return noOpinion(`unknown node for user ${JSON.stringify(attributes.user.name)}`);
      if (!attributes.isResourceRequest) return byNodeRules(attributes);
      const resource =
        attributes.apiGroup === '' ? attributes.resource : `${attributes.resource}.${attributes.apiGroup}`;
      return decide[resource]?.(node, attributes) ?? byNodeRules(attributes);
    },
    // A node's permissions follow its graph, which no list of rules can say.
    rulesFor: (user) =>
      nodeIdentity(user) === undefined
        ? NO_RULES
        : {
            ...NO_RULES,
            incomplete: true,
            evaluationErrors: ['node authorizer does not support user rule resolution'],
          },
  };
}
