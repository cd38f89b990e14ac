/**
 * The Node mode: a kubelet (`system:node:<name>` in `system:nodes`) may read the secrets,
 * config maps, claims and volumes that pods bound to its node use, read those pods (and list or
 * watch pods only of its node), read only its own Node object, update the status of claims its
 * pods use, request tokens for its pods' service accounts, and otherwise what the `system:node`
 * role of the bootstrap policy lists. Anyone else gets no opinion. Whether the NodeRestriction
 * admission plugin limits its writes further is not this mode's business.
 */
import type { UserInfo } from '../../authn/types';
import { bootstrapPolicy } from '../rbac/bootstrap-policy';
import { rulesOf, type PolicyRule } from '../rbac/policy';
import { ruleAllows } from '../rbac/rule-matching';
import { ALLOW, NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer } from '../types';
import type { NodeGraph, NodeObjectKind } from './node-graph';

export const NODES_GROUP = 'system:nodes';
const NODE_USER_PREFIX = 'system:node:';
const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

/** The node a user speaks for, '' for a node identity without a name, undefined for anyone else. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.groups.includes(NODES_GROUP) || !user.name.startsWith(NODE_USER_PREFIX)) return undefined;
  return user.name.slice(NODE_USER_PREFIX.length);
}

function noOpinion(reason: string): AuthorizationResult {
  return { decision: 'no-opinion', reason };
}

export function nodeAuthorizer(graph: NodeGraph): Authorizer {
  const nodeRules: readonly PolicyRule[] = rulesOf(bootstrapPolicy().clusterRoles.find((role) => role.metadata.name === 'system:node')!);
  const byNodeRules = (attributes: Attributes): AuthorizationResult => (nodeRules.some((rule) => ruleAllows(attributes, rule)) ? ALLOW : NO_OPINION);
  const related = (node: string, kind: NodeObjectKind | 'persistentvolumes', attributes: Attributes): AuthorizationResult => {
    const reached = kind === 'persistentvolumes' ? graph.reachesVolume(node, attributes.name) : graph.reaches(node, kind, attributes.namespace, attributes.name);
    return reached ? ALLOW : noOpinion(`no relationship found between node '${node}' and this object`);
  };
  const readOne = (node: string, kind: NodeObjectKind | 'persistentvolumes', attributes: Attributes, verbs: ReadonlySet<string>): AuthorizationResult => {
    if (!verbs.has(attributes.verb)) return noOpinion('can only read resources of this type');
    if (attributes.subresource !== '') return noOpinion('cannot read subresource');
    if (attributes.name === '') return noOpinion('can only read individual resources of this type');
    return related(node, kind, attributes);
  };

  return {
    authorize(attributes) {
      const node = nodeIdentity(attributes.user);
      if (node === undefined) return NO_OPINION;
      if (node === '') return noOpinion(`unknown node for user ${JSON.stringify(attributes.user.name)}`);
      if (!attributes.isResourceRequest) return byNodeRules(attributes);
      const core = attributes.apiGroup === '';
      switch (core ? attributes.resource : `${attributes.resource}.${attributes.apiGroup}`) {
        case 'secrets':
        case 'configmaps':
          return readOne(node, attributes.resource as NodeObjectKind, attributes, READ_VERBS);
        case 'persistentvolumeclaims':
          if (attributes.subresource === 'status') {
            return attributes.verb === 'update' || attributes.verb === 'patch' ? related(node, 'persistentvolumeclaims', attributes) : noOpinion('can only update or patch the status of this resource');
          }
          return readOne(node, 'persistentvolumeclaims', attributes, new Set(['get']));
        case 'persistentvolumes':
          return readOne(node, 'persistentvolumes', attributes, new Set(['get']));
        case 'serviceaccounts':
          if (attributes.verb !== 'create' || attributes.subresource !== 'token' || attributes.name === '') return noOpinion('can only create tokens for individual service accounts');
          return related(node, 'serviceaccounts', attributes);
        case 'nodes':
          if (READ_VERBS.has(attributes.verb) && attributes.name !== node) return noOpinion(`node '${node}' cannot read '${attributes.name}', only its own Node object`);
          return byNodeRules(attributes);
        case 'pods':
          if (attributes.verb === 'get' && attributes.subresource === '') return related(node, 'pods', attributes);
          if (attributes.verb === 'list' || attributes.verb === 'watch') {
            const scoped = (attributes.fieldSelector ?? []).some((requirement) => requirement.field === 'spec.nodeName' && requirement.operator === '=' && requirement.value === node);
            return scoped ? byNodeRules(attributes) : noOpinion('can only list/watch pods with spec.nodeName field selector');
          }
          return byNodeRules(attributes);
        default:
          return byNodeRules(attributes);
      }
    },
  };
}
