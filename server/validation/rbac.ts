/** rbac.authorization.k8s.io/v1 rules: role references and policy rules. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { deepEqual, FieldPath, invalid, notSupported, required } from '../status/field-errors';
import { isDNS1123Subdomain, isValidPathSegmentName } from './names';
import {
  labelSelectorParses,
  validateLabelSelector,
  type LabelSelectorOptions,
  type LabelSelectorShape,
} from './object-meta';

interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** Each rule as the reference's ValidatePolicyRule: verbs, then either non-resource URLs alone or groups and resources. */
export function validatePolicyRules(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  ((object.rules as PolicyRule[] | undefined) ?? []).forEach((rule, i) => {
    const at = FieldPath.root('rules').index(i);
    const count = (list: readonly unknown[] | undefined) => list?.length ?? 0;
    if (count(rule.verbs) === 0) errors.push(required(at.child('verbs'), 'verbs must contain at least one value'));
    if (count(rule.nonResourceURLs) > 0) {
      if (object.kind === 'Role')
        errors.push(
          invalid(
            at.child('nonResourceURLs'),
            rule.nonResourceURLs,
            'namespaced rules cannot apply to non-resource URLs',
          ),
        );
      if (count(rule.apiGroups) > 0 || count(rule.resources) > 0 || count(rule.resourceNames) > 0)
        errors.push(
          invalid(
            at.child('nonResourceURLs'),
            rule.nonResourceURLs,
            'rules cannot apply to both regular resources and non-resource URLs',
          ),
        );
      return;
    }
    if (count(rule.apiGroups) === 0)
      errors.push(required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
    if (count(rule.resources) === 0)
      errors.push(required(at.child('resources'), 'resource rules must supply at least one resource'));
  });
  return errors;
}

const clusterRoleSelectorsOf = (role: KubeObject): LabelSelectorShape[] | undefined =>
  (role.aggregationRule as { clusterRoleSelectors?: LabelSelectorShape[] } | undefined)?.clusterRoleSelectors;

/** A ClusterRole's rules, and the selectors of the roles it aggregates when it aggregates. */
export function validateClusterRole(role: KubeObject): FieldError[] {
  return validateClusterRoleWith(role, { allowInvalidLabelValues: false });
}

/**
 * A ClusterRole's rules as its update runs them (twice: the reference's ValidateUpdate runs
 * ValidateClusterRole, then ValidateClusterRoleUpdate runs it again): the values of the selectors
 * are spared when a stored selector is invalid in any way, as the reference's strategy allows.
 */
export function validateClusterRoleOnUpdate(role: KubeObject, old: KubeObject): FieldError[] {
  const storedInvalid = (clusterRoleSelectorsOf(old) ?? []).some((selector) => !labelSelectorParses(selector));
  return validateClusterRoleWith(role, { allowInvalidLabelValues: storedInvalid });
}

function validateClusterRoleWith(role: KubeObject, selectorOptions: LabelSelectorOptions): FieldError[] {
  const errors = validatePolicyRules(role);
  if (role.aggregationRule === undefined) return errors;
  const path = FieldPath.root('aggregationRule', 'clusterRoleSelectors');
  const selectors = clusterRoleSelectorsOf(role) ?? [];
  if (selectors.length === 0)
    errors.push(required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((selector, i) => {
    errors.push(...validateLabelSelector(selector, path.index(i), selectorOptions));
    // The reference prints the selector LabelSelectorAsSelector failed to return: none.
    if (!labelSelectorParses(selector)) errors.push(invalid(path.index(i), null, 'invalid label selector.'));
  });
  return errors;
}

interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

function validateRoleRef(roleRef: RoleRef | undefined, allowedKinds: readonly string[]): FieldError[] {
  const path = FieldPath.root('roleRef');
  const errors: FieldError[] = [];
  if (roleRef?.apiGroup !== 'rbac.authorization.k8s.io')
    errors.push(notSupported(path.child('apiGroup'), roleRef?.apiGroup ?? '', ['rbac.authorization.k8s.io']));
  if (!allowedKinds.includes(roleRef?.kind ?? ''))
    errors.push(notSupported(path.child('kind'), roleRef?.kind ?? '', allowedKinds));
  if (!roleRef?.name) errors.push(required(path.child('name')));
  else
    for (const message of isValidPathSegmentName(roleRef.name))
      errors.push(invalid(path.child('name'), roleRef.name, message));
  return errors;
}

const RBAC_GROUP = 'rbac.authorization.k8s.io';

interface Subject {
  apiGroup?: string;
  kind?: string;
  name?: string;
  namespace?: string;
}

/** Each subject as the reference's ValidateRoleBindingSubject, by its kind. */
function validateSubjects(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  ((object.subjects as Subject[] | undefined) ?? []).forEach((subject, i) => {
    const at = FieldPath.root('subjects').index(i);
    const name = subject.name ?? '';
    const apiGroup = subject.apiGroup ?? '';
    if (name === '') errors.push(required(at.child('name')));
    if (subject.kind === 'ServiceAccount') {
      for (const message of name === '' ? [] : isDNS1123Subdomain(name))
        errors.push(invalid(at.child('name'), name, message));
      // A service account is of the core group; users and groups are RBAC's own.
      if (apiGroup !== '') errors.push(notSupported(at.child('apiGroup'), apiGroup, ['']));
      if (object.kind === 'ClusterRoleBinding' && !subject.namespace) errors.push(required(at.child('namespace')));
    } else if (subject.kind === 'User' || subject.kind === 'Group') {
      if (apiGroup !== RBAC_GROUP) errors.push(notSupported(at.child('apiGroup'), apiGroup, [RBAC_GROUP]));
    } else errors.push(notSupported(at.child('kind'), subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  });
  return errors;
}

export function validateRoleBinding(binding: KubeObject): FieldError[] {
  const kinds = binding.kind === 'ClusterRoleBinding' ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  return [...validateRoleRef(binding.roleRef as RoleRef | undefined, kinds), ...validateSubjects(binding)];
}

/** A binding's roleRef never changes: what it grants is decided when it is made. */
export function validateRoleBindingUpdate(binding: KubeObject, old: KubeObject): FieldError[] {
  if (deepEqual(binding.roleRef, old.roleRef)) return [];
  const ref = (binding.roleRef as RoleRef | undefined) ?? {};
  // The reference prints its internal RoleRef as JSON, whose members have no tags: Go's names.
  const shown = { APIGroup: ref.apiGroup ?? '', Kind: ref.kind ?? '', Name: ref.name ?? '' };
  return [invalid(FieldPath.root('roleRef'), shown, 'cannot change roleRef')];
}
