/**
 * ResourceQuota rules, after the reference's: a quota's amounts, its scopes and its scope
 * selector, the scopes fixed once made; a status write's amounts.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FIELD_IMMUTABLE, FieldPath, invalid, required } from '../status/field-errors';
import { HUGE_PAGES_PREFIX, validateResourceName } from './resource-names';
import { validateResourceQuantityValue } from './resource-requirements';

const STANDARD_QUOTA_SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
  'VolumeAttributesClass',
];
/** Scopes that only say whether they apply, so only `Exists` fits them. */
const PRESENCE_SCOPES = ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'];

interface ScopeRequirement {
  scopeName?: string;
  operator?: string;
  values?: string[] | null;
}

interface QuotaSpec {
  hard?: Record<string, unknown>;
  scopes?: string[];
  scopeSelector?: { matchExpressions?: ScopeRequirement[] } | null;
}

/** Every name without a domain a quota may hold, besides requests of huge pages. */
const STANDARD_QUOTA_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);
const POD_COUNT_RESOURCES = ['pods'];
const POD_COMPUTE_RESOURCES = ['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory'];
/** Pairs of scopes that cannot both hold: no pod is in both. */
const CONFLICTING_SCOPES = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

function isStandardQuotaResource(name: string): boolean {
  return STANDARD_QUOTA_RESOURCES.has(name) || name.startsWith(`requests.${HUGE_PAGES_PREFIX}`);
}

/** Whether a scope can count the resource: pod scopes count pods (and, but for BestEffort, their compute). */
function scopeFitsResource(scope: string, name: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return POD_COUNT_RESOURCES.includes(name) || POD_COMPUTE_RESOURCES.includes(name);
    case 'BestEffort':
      return POD_COUNT_RESOURCES.includes(name);
    case 'VolumeAttributesClass':
      return name === 'persistentvolumeclaims' || name === 'requests.storage';
    default:
      return true;
  }
}

/** A name of a quota's (or its status's) resource list: a resource name the quota system tracks. */
function validateQuotaResourceName(name: string, path: FieldPath): FieldError[] {
  const errors = validateResourceName(name, path);
  if (!name.includes('/') && !isStandardQuotaResource(name))
    errors.push(invalid(path, name, 'must be a standard resource for quota'));
  return errors;
}

/** A quota's list of amounts (`spec.hard`, `status.hard`, `status.used`): names and amounts, each in turn. */
function validateQuotaResourceList(list: Record<string, unknown> | undefined, path: FieldPath): FieldError[] {
  return Object.entries(list ?? {}).flatMap(([name, amount]) => [
    ...validateQuotaResourceName(name, path.key(name)),
    ...validateResourceQuantityValue(name, amount, path.key(name)),
  ]);
}

/** The standard names of a quota's hard list, sorted as the reference walks them. */
function standardHardNames(spec: QuotaSpec): string[] {
  return Object.keys(spec.hard ?? {})
    .filter(isStandardQuotaResource)
    .sort();
}

function conflictingScopes(scopes: ReadonlySet<string>): number {
  return CONFLICTING_SCOPES.filter((pair) => pair.every((scope) => scopes.has(scope))).length;
}

/** The scopes, each known and fit for every resource the quota holds, no two in conflict. */
function validateQuotaScopes(spec: QuotaSpec, path: FieldPath): FieldError[] {
  const scopes = spec.scopes ?? [];
  if (scopes.length === 0) return [];
  const errors: FieldError[] = [];
  for (const scope of scopes) {
    if (!STANDARD_QUOTA_SCOPES.includes(scope)) errors.push(invalid(path, scopes, 'unsupported scope'));
    for (const name of standardHardNames(spec))
      if (!scopeFitsResource(scope, name)) errors.push(invalid(path, scopes, 'unsupported scope applied to resource'));
  }
  for (let i = conflictingScopes(new Set(scopes)); i > 0; i--) errors.push(invalid(path, scopes, 'conflicting scopes'));
  return errors;
}

/** The scope selector as the reference prints it: its internal struct, members by their Go names. */
function internalScopeSelector(expressions: readonly ScopeRequirement[]) {
  return {
    MatchExpressions: expressions.map((requirement) => ({
      ScopeName: requirement.scopeName ?? '',
      Operator: requirement.operator ?? '',
      Values: requirement.values ?? null,
    })),
  };
}

/** A quota's scope selector; the reference names its errors without the requirement's index. */
function validateScopeSelector(spec: QuotaSpec, path: FieldPath): FieldError[] {
  const expressions = spec.scopeSelector?.matchExpressions ?? [];
  const errors: FieldError[] = [];
  for (const requirement of expressions) {
    const scope = requirement.scopeName ?? '';
    const operator = requirement.operator ?? '';
    const values = requirement.values ?? [];
    if (!STANDARD_QUOTA_SCOPES.includes(scope))
      errors.push(invalid(path.child('scopeName'), scope, 'unsupported scope'));
    for (const name of standardHardNames(spec))
      if (!scopeFitsResource(scope, name))
        errors.push(invalid(path, internalScopeSelector(expressions), 'unsupported scope applied to resource'));
    if (PRESENCE_SCOPES.includes(scope) && operator !== 'Exists') {
      errors.push(
        invalid(
          path.child('operator'),
          operator,
          "must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0)
        errors.push(
          required(
            path.child('values'),
            "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
          ),
        );
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0)
        errors.push(
          invalid(
            path.child('values'),
            values,
            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
          ),
        );
    } else {
      errors.push(invalid(path.child('operator'), operator, 'not a valid selector operator'));
    }
  }
  // The reference shows the scopes list here, not the selector's.
  const selected = new Set(expressions.map((requirement) => requirement.scopeName ?? ''));
  for (let i = conflictingScopes(selected); i > 0; i--)
    errors.push(invalid(path, spec.scopes ?? null, 'conflicting scopes'));
  return errors;
}

/** A quota's spec: its hard amounts, its scopes, then its scope selector. */
export function validateResourceQuota(quota: KubeObject): FieldError[] {
  const spec = (quota.spec as QuotaSpec | undefined) ?? {};
  const path = FieldPath.root('spec');
  return [
    ...validateQuotaResourceList(spec.hard, path.child('hard')),
    ...validateQuotaScopes(spec, path.child('scopes')),
    ...validateScopeSelector(spec, path.child('scopeSelector', 'matchExpressions')),
  ];
}

/** What a status write may hold: the names and amounts of its hard and used lists. */
export function validateResourceQuotaStatusUpdate(quota: KubeObject): FieldError[] {
  const status = (quota.status as { hard?: Record<string, unknown>; used?: Record<string, unknown> } | undefined) ?? {};
  return [
    ...validateQuotaResourceList(status.hard, FieldPath.root('status', 'hard')),
    ...validateQuotaResourceList(status.used, FieldPath.root('status', 'used')),
  ];
}

/** A quota's scopes are fixed once made: what it counted was chosen by them. Compared as sets. */
export function validateResourceQuotaUpdate(quota: KubeObject, old: KubeObject): FieldError[] {
  const scopesOf = (object: KubeObject) => (object.spec as { scopes?: string[] } | undefined)?.scopes ?? [];
  const [scopes, oldScopes] = [new Set(scopesOf(quota)), new Set(scopesOf(old))];
  const same = scopes.size === oldScopes.size && [...scopes].every((scope) => oldScopes.has(scope));
  return [
    ...validateResourceQuota(quota),
    ...(same ? [] : [invalid(FieldPath.root('spec', 'scopes'), scopesOf(quota), FIELD_IMMUTABLE)]),
  ];
}
