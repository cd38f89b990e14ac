/**
 * LimitRange and ResourceQuota rules, after the reference's: known limit types and resource
 * names per limit, and a quota's scope selector.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { duplicate, FIELD_IMMUTABLE, FieldPath, invalid, required } from '../status/field-errors';
import { isQualifiedName } from './names';
import { validateContainerResourceName, validateResourceName } from './resource-names';

const STANDARD_LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
const LIMIT_RESOURCE_LISTS = ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio'] as const;

type LimitItem = { type?: string } & { [list in (typeof LIMIT_RESOURCE_LISTS)[number]]?: Record<string, unknown> };

function validateLimitType(type: string, path: FieldPath): FieldError[] {
  const messages = isQualifiedName(type);
  if (messages.length > 0) return messages.map((message) => invalid(path, type, message));
  return type.includes('/') || STANDARD_LIMIT_TYPES.includes(type)
    ? []
    : [invalid(path, type, 'must be a standard limit type or fully qualified')];
}

export function validateLimitRange(limitRange: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const limits = (limitRange.spec as { limits?: LimitItem[] } | undefined)?.limits ?? [];
  const seen = new Set<string>();
  limits.forEach((limit, i) => {
    const at = FieldPath.root('spec', 'limits').index(i);
    const type = limit.type ?? '';
    errors.push(...validateLimitType(type, at.child('type')));
    if (seen.has(type)) errors.push(duplicate(at.child('type'), type));
    seen.add(type);
    // Pods and containers are limited in what a container can ask for; other types in any resource.
    const checkName = type === 'Pod' || type === 'Container' ? validateContainerResourceName : validateResourceName;
    for (const list of LIMIT_RESOURCE_LISTS) {
      for (const name of Object.keys(limit[list] ?? {})) errors.push(...checkName(name, at.child(list).key(name)));
    }
  });
  return errors;
}

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
  values?: string[];
}

/** A quota's scope selector; the reference names its errors without the requirement's index. */
export function validateResourceQuota(quota: KubeObject): FieldError[] {
  const expressions =
    (quota.spec as { scopeSelector?: { matchExpressions?: ScopeRequirement[] } } | undefined)?.scopeSelector
      ?.matchExpressions ?? [];
  const path = FieldPath.root('spec', 'scopeSelector', 'matchExpressions');
  const errors: FieldError[] = [];
  for (const requirement of expressions) {
    const scope = requirement.scopeName ?? '';
    const operator = requirement.operator ?? '';
    const values = requirement.values ?? [];
    if (!STANDARD_QUOTA_SCOPES.includes(scope))
      errors.push(invalid(path.child('scopeName'), scope, 'unsupported scope'));
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
  return errors;
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
