/**
 * Whether one policy rule covers a request, as the reference's RBAC decides: `*` matches any
 * verb, group or resource; `<resource>/<subresource>` names a subresource and `*` then `/<subresource>`
 * that subresource of every resource; resourceNames restrict to named objects (so never allow a
 * create, a list or anything else without a name); a nonResourceURL ending in `*` matches every
 * path it prefixes.
 */
import type { Attributes } from '../types';
import type { PolicyRule } from './policy';

const ALL = '*';

export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (attributes.isResourceRequest) {
    const combined = attributes.subresource ? `${attributes.resource}/${attributes.subresource}` : attributes.resource;
    return (
      verbMatches(rule, attributes.verb) &&
      apiGroupMatches(rule, attributes.apiGroup) &&
      resourceMatches(rule, combined, attributes.subresource) &&
      resourceNameMatches(rule, attributes.name)
    );
  }
  return verbMatches(rule, attributes.verb) && nonResourceURLMatches(rule, attributes.path);
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((ruleVerb) => ruleVerb === ALL || ruleVerb === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((ruleGroup) => ruleGroup === ALL || ruleGroup === group);
}

export function resourceMatches(rule: PolicyRule, combinedResource: string, subresource: string): boolean {
  return (rule.resources ?? []).some(
    (ruleResource) =>
      ruleResource === ALL ||
      ruleResource === combinedResource ||
      (subresource !== '' && ruleResource === `*/${subresource}`),
  );
}

export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (url) => url === ALL || url === path || (url.endsWith('*') && path.startsWith(url.slice(0, -1))),
  );
}
