/**
 * Whether one set of rules grants everything another does, as the reference decides for
 * escalation checks and for reconciling default roles: the other set is broken into atomic
 * rules (one verb on one resource of one group, one name; or one verb on one URL), and each must
 * be granted by some rule of the first set.
 */
import type { PolicyRule } from './policy';

export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const atoms: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) atoms.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else
          for (const name of names)
            atoms.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) atoms.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return atoms;
}

/** The atomic rules of `wanted` that `owned` does not grant; empty when it covers them all. */
export function uncoveredRules(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  const uncovered: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const atom of breakdownRule(rule)) {
      if (!owned.some((owner) => ruleCovers(owner, atom))) uncovered.push(atom);
    }
  }
  return uncovered;
}

function ruleCovers(owner: PolicyRule, atom: PolicyRule): boolean {
  if (!coversAll(owner.verbs, atom.verbs)) return false;
  if ((atom.nonResourceURLs ?? []).length > 0)
    return urlsCover(owner.nonResourceURLs ?? [], atom.nonResourceURLs ?? []);
  return (
    coversAll(owner.apiGroups ?? [], atom.apiGroups ?? []) &&
    resourcesCover(owner.resources ?? [], atom.resources ?? []) &&
    namesCover(owner.resourceNames ?? [], atom.resourceNames ?? [])
  );
}

function coversAll(owned: readonly string[], wanted: readonly string[]): boolean {
  return owned.includes('*') || wanted.every((item) => owned.includes(item));
}

function resourcesCover(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.includes('*')) return true;
  return wanted.every((resource) => {
    if (owned.includes(resource)) return true;
    const slash = resource.indexOf('/');
    return slash > 0 && owned.includes(`*${resource.slice(slash)}`);
  });
}

function namesCover(owned: readonly string[], wanted: readonly string[]): boolean {
  if (owned.length === 0) return true;
  return wanted.length > 0 && wanted.every((name) => owned.includes(name));
}

function urlsCover(owned: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((url) =>
    owned.some((own) => own === '*' || own === url || (own.endsWith('*') && url.startsWith(own.slice(0, -1)))),
  );
}
