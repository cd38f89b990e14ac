/**
 * The ABAC mode (`--authorization-policy-file`): one JSON Policy a line (blank lines and `#`
 * comments skipped), read once at start. A request is allowed when a line's subject, verb and
 * resource or non-resource path all match; otherwise "No policy matched.". Lines in the
 * unversioned v0 form are converted as the reference converts them (empty user and group: all
 * authenticated; empty namespace or resource: all; any API group; empty resource: any path too);
 * in v1beta1 a `*` user or group means every authenticated user.
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../../api/user-info';
import { AUTHENTICATED_GROUP } from '../../api/user-info';
import { ALLOW, type Attributes, type Authorizer, type SubjectRules } from './types';

export const ABAC_VERSION = 'abac.authorization.kubernetes.io/v1beta1';
const READ_ONLY_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);
const NO_MATCH = { decision: 'no-opinion', reason: 'No policy matched.' } as const;

export interface AbacPolicy {
  readonly user: string;
  readonly group: string;
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

interface PolicyLine {
  apiVersion?: unknown;
  kind?: unknown;
  spec?: Record<string, unknown>;
  user?: unknown;
  group?: unknown;
  readonly?: unknown;
  resource?: unknown;
  namespace?: unknown;
}

const text = (value: unknown, field: string): string => {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new Error(`${field} must be a string`);
  return value;
};

export function parsePolicyLine(line: string): AbacPolicy {
  const parsed = JSON.parse(line) as PolicyLine;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('a policy must be a JSON object');
  if (parsed.apiVersion === undefined && parsed.kind === undefined) {
    const user = text(parsed.user, 'user');
    const group = text(parsed.group, 'group');
    const resource = text(parsed.resource, 'resource');
    const namespace = text(parsed.namespace, 'namespace');
    return {
      user,
      group: user === '' && group === '' ? AUTHENTICATED_GROUP : group,
      readonly: parsed.readonly === true,
      apiGroup: '*',
      resource: resource === '' ? '*' : resource,
      namespace: namespace === '' ? '*' : namespace,
      nonResourcePath: resource === '' ? '*' : '',
    };
  }
  if (parsed.apiVersion !== ABAC_VERSION)
    throw new Error(
      `unknown apiVersion ${JSON.stringify(parsed.apiVersion)}, expected ${JSON.stringify(ABAC_VERSION)}`,
    );
  if (parsed.kind !== 'Policy') throw new Error(`unknown kind ${JSON.stringify(parsed.kind)}, expected "Policy"`);
  const spec = parsed.spec ?? {};
  let user = text(spec.user, 'spec.user');
  let group = text(spec.group, 'spec.group');
  if (user === '*' || group === '*') {
    user = '';
    group = AUTHENTICATED_GROUP;
  }
  if (spec.readonly !== undefined && typeof spec.readonly !== 'boolean')
    throw new Error('spec.readonly must be a boolean');
  return {
    user,
    group,
    readonly: spec.readonly === true,
    apiGroup: text(spec.apiGroup, 'spec.apiGroup'),
    resource: text(spec.resource, 'spec.resource'),
    namespace: text(spec.namespace, 'spec.namespace'),
    nonResourcePath: text(spec.nonResourcePath, 'spec.nonResourcePath'),
  };
}

/** Throws with the file and line of the first policy that does not parse. */
export function readPolicyFile(path: string): AbacPolicy[] {
  const policies: AbacPolicy[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((raw, index) => {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) return;
      try {
        policies.push(parsePolicyLine(line));
      } catch (error) {
        throw new Error(`${path}:${index + 1}: unable to read the ABAC policy: ${(error as Error).message}`);
      }
    });
  return policies;
}

function subjectMatches(policy: AbacPolicy, user: UserInfo): boolean {
  let matched = false;
  if (policy.user !== '') {
    if (policy.user !== '*' && policy.user !== user.name) return false;
    matched = true;
  }
  if (policy.group !== '') {
    if (policy.group !== '*' && !user.groups.includes(policy.group)) return false;
    matched = true;
  }
  return matched;
}

function pathMatches(pattern: string, path: string): boolean {
  return pattern === '*' || pattern === path || (pattern.endsWith('*') && path.startsWith(pattern.replace(/\*+$/, '')));
}

export function policyMatches(policy: AbacPolicy, attributes: Attributes): boolean {
  if (!subjectMatches(policy, attributes.user)) return false;
  if (policy.readonly && !READ_ONLY_VERBS.has(attributes.verb)) return false;
  if (attributes.isResourceRequest) {
    return (
      (policy.namespace === '*' || policy.namespace === attributes.namespace) &&
      (policy.resource === '*' || policy.resource === attributes.resource) &&
      (policy.apiGroup === '*' || policy.apiGroup === attributes.apiGroup)
    );
  }
  return policy.nonResourcePath !== '' && pathMatches(policy.nonResourcePath, attributes.path);
}

export function abacAuthorizer(policies: readonly AbacPolicy[]): Authorizer {
  return {
    authorize: (attributes) => (policies.some((policy) => policyMatches(policy, attributes)) ? ALLOW : NO_MATCH),
    rulesFor(user, namespace): SubjectRules {
      const resourceRules: SubjectRules['resourceRules'][number][] = [];
      const nonResourceRules: SubjectRules['nonResourceRules'][number][] = [];
      for (const policy of policies) {
        if (!subjectMatches(policy, user)) continue;
        const verbs = policy.readonly ? ['get', 'list', 'watch'] : ['*'];
        if (policy.resource !== '' && (policy.namespace === '*' || policy.namespace === namespace)) {
          resourceRules.push({ verbs, apiGroups: [policy.apiGroup], resources: [policy.resource] });
        }
        if (policy.nonResourcePath !== '') nonResourceRules.push({ verbs, nonResourceURLs: [policy.nonResourcePath] });
      }
      return { resourceRules, nonResourceRules, incomplete: false, evaluationErrors: [] };
    },
  };
}
