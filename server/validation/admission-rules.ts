/**
 * The rules that say which requests an admission webhook or policy sees (operations, API groups,
 * versions, resources with their subresources, scope, and a policy's resource names), checked
 * as the reference's admissionregistration validation does, in its order and with its messages.
 */
import { duplicate, FieldPath, invalid, notSupported, required } from '../status/field-errors';
import type { FieldError } from '../status/field-error';
import { isValidPathSegmentName } from './names';

export interface RuleWithOperations {
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly scope?: string;
}

export interface NamedRuleWithOperations extends RuleWithOperations {
  readonly resourceNames?: readonly string[];
}

/** Go's sets.String.List(): sorted. */
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];

/** The reference's validateRuleWithOperations (subresources allowed, as for every admission rule). */
export function validateRuleWithOperations(rule: RuleWithOperations, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const operations = rule.operations ?? [];
  if (operations.length === 0) errors.push(required(path.child('operations')));
  if (operations.length > 1 && operations.includes('*'))
    errors.push(invalid(path.child('operations'), operations, "if '*' is present, must not specify other operations"));
  operations.forEach((operation, i) => {
    if (!OPERATIONS.includes(operation))
      errors.push(notSupported(path.child('operations').index(i), operation, OPERATIONS));
  });
  const groups = rule.apiGroups ?? [];
  if (groups.length === 0) errors.push(required(path.child('apiGroups')));
  if (groups.length > 1 && groups.includes('*'))
    errors.push(invalid(path.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  const versions = rule.apiVersions ?? [];
  if (versions.length === 0) errors.push(required(path.child('apiVersions')));
  if (versions.length > 1 && versions.includes('*'))
    errors.push(invalid(path.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((version, i) => {
    if (version === '') errors.push(required(path.child('apiVersions').index(i)));
  });
  errors.push(...validateResources(rule.resources ?? [], path.child('resources')));
  if (rule.scope !== undefined && rule.scope !== null && !SCOPES.includes(rule.scope))
    errors.push(notSupported(path.child('scope'), rule.scope, SCOPES));
  return errors;
}

/** The reference's validateNamedRuleWithOperations: resource names (path segments, unique), then the rule. */
export function validateNamedRuleWithOperations(rule: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (rule.resourceNames ?? []).forEach((name, i) => {
    const at = path.child('resourceNames').index(i);
    for (const message of isValidPathSegmentName(name)) errors.push(invalid(at, name, message));
    if (seen.has(name)) errors.push(duplicate(at, name));
    seen.add(name);
  });
  return [...errors, ...validateRuleWithOperations(rule, path)];
}

/**
 * Resources, each `resource` or `resource/subresource`, either part possibly `*`: a wildcard
 * leaves no room for what it already covers.
 */
function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(required(path));
  const withWildcardSubresource = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  // As the reference has it, the last plain resource decides (a later `*` clears it).
  let hasResourceWithoutSubresource = false;
  resources.forEach((entry, i) => {
    if (entry === '') return void errors.push(required(path.index(i)));
    if (entry === '*/*') hasDoubleWildcard = true;
    if (entry === '*') hasSingleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash < 0) return void (hasResourceWithoutSubresource = entry !== '*');
    const [resource, subresource] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (withWildcardSubresource.has(resource))
      errors.push(invalid(path.index(i), entry, `if '${resource}/*' is present, must not specify ${entry}`));
    if (subresourcesWithWildcardResource.has(subresource))
      errors.push(invalid(path.index(i), entry, `if '*/${subresource}' is present, must not specify ${entry}`));
    if (subresource === '*') withWildcardSubresource.add(resource);
    if (resource === '*') subresourcesWithWildcardResource.add(subresource);
  });
  if (resources.length > 1 && hasDoubleWildcard)
    errors.push(invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource)
    errors.push(invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errors;
}
