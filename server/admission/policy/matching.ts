/**
 * Whether a request falls under a policy's matchConstraints or a binding's matchResources:
 * resource rules (with `*` and `resource/subresource` forms, scope and resource names), less
 * the excluded rules, then the namespace selector (on the namespace's labels; cluster-scoped
 * requests match it, except a Namespace, which is judged by its own labels) and the object
 * selector (on the new or the old object's labels). Versions are matched exactly.
 */
import { labelRequirementMatches, type LabelRequirement } from '../../selectors/label-selector';
import type {
  AdmissionAttributes,
  LabelSelector,
  MatchResources,
  RuleWithOperations,
} from '../../../api/admissionregistration';

const OPERATORS: Readonly<Record<string, LabelRequirement['operator']>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

export function selectorMatches(
  selector: LabelSelector | undefined,
  labels: Readonly<Record<string, string>>,
): boolean {
  if (!selector) return true;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    const labelOperator = OPERATORS[operator];
    return labelOperator !== undefined && labelRequirementMatches({ key, operator: labelOperator, values }, labels);
  });
}

function includes(list: readonly string[] | undefined, value: string): boolean {
  return (list ?? []).some((entry) => entry === '*' || entry === value);
}

function resourceMatches(patterns: readonly string[] | undefined, resource: string, subresource: string): boolean {
  return (patterns ?? []).some((pattern) => {
    const [patternResource, patternSub] = pattern.split('/', 2);
    if (patternSub === undefined)
      return subresource === '' && (patternResource === '*' || patternResource === resource);
    return (
      (patternResource === '*' || patternResource === resource) && (patternSub === '*' || patternSub === subresource)
    );
  });
}

export function ruleMatches(rule: RuleWithOperations, attributes: AdmissionAttributes): boolean {
  const scope = rule.scope ?? '*';
  if (scope === 'Cluster' && attributes.namespace !== '') return false;
  if (scope === 'Namespaced' && attributes.namespace === '') return false;
  if (rule.resourceNames?.length && !rule.resourceNames.includes(attributes.name)) return false;
  return (
    includes(rule.operations, attributes.operation) &&
    includes(rule.apiGroups, attributes.resource.group) &&
    includes(rule.apiVersions, attributes.resource.version) &&
    resourceMatches(rule.resources, attributes.resource.resource, attributes.subresource)
  );
}

function labelsOf(object: Readonly<Record<string, unknown>> | null): Readonly<Record<string, string>> {
  const metadata = object?.metadata as { labels?: Record<string, string> } | undefined;
  return metadata?.labels ?? {};
}

/**
 * Whether `match` selects the request. `namespaceLabels` are the labels of the request's
 * namespace (undefined for a cluster-scoped request).
 */
export function matchResources(
  match: MatchResources | undefined,
  attributes: AdmissionAttributes,
  namespaceLabels: Readonly<Record<string, string>> | undefined,
): boolean {
  if (!match) return true;
  if (match.resourceRules && !match.resourceRules.some((rule) => ruleMatches(rule, attributes))) return false;
  if ((match.excludeResourceRules ?? []).some((rule) => ruleMatches(rule, attributes))) return false;
  const isNamespace = attributes.resource.group === '' && attributes.resource.resource === 'namespaces';
  const ownLabels = isNamespace ? labelsOf(attributes.object ?? attributes.oldObject) : namespaceLabels;
  if (ownLabels !== undefined && !selectorMatches(match.namespaceSelector, ownLabels)) return false;
  if (match.objectSelector) {
    const candidates = [attributes.object, attributes.oldObject].filter((o) => o !== null);
    if (!candidates.some((object) => selectorMatches(match.objectSelector, labelsOf(object)))) return false;
  }
  return true;
}
