/**
 * Type-checking a ValidatingAdmissionPolicy against the kinds it matches, for its
 * `status.typeChecking` (the reference's TypeChecker, which only warns: a policy is enforced
 * the same whatever its warnings say).
 *
 * The kinds: every group × version × resource of matchConstraints.resourceRules, sorted, that
 * the server serves, at most 10; a rule with a wildcard group or version is skipped, as are
 * wildcard and subresource names. Each validation's expression and messageExpression is compiled
 * with `object` and `oldObject` typed by the kind's schema and `params` by the paramKind's
 * (declarations.ts has the rest). A warning names each kind that
 * failed, `<group>/<version>, Kind=<kind>: <errors>`, one paragraph per kind.
 */
import type { CelSchema } from '../../cel/schema-types';
import { policyCompilers, type PolicyCompilers } from '../../validation/admission-cel/declarations';
import type { ResolvedKind } from '../../validation/admission-cel/kind-schemas';
import type { ExpressionWarning, ValidatingAdmissionPolicySpec } from '../../../api/admissionregistration';

import type { GroupVersionKind } from '../../../api/identity';
const MAX_TYPES_TO_CHECK = 10;

/** Where kinds and their schemas come from (the server's registry and definitions). */
export interface KindResolver {
  kindOfResource(resource: { group: string; version: string; resource: string }): ResolvedKind | undefined;
  schemaOfKind(gvk: GroupVersionKind): CelSchema | undefined;
}

function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** Names without wildcards; none at all when any is a wildcard. */
function exactNames(names: readonly string[] | undefined): string[] {
  const list = names ?? [];
  return list.some((name) => name.includes('*')) ? [] : [...list].sort();
}

/** The kinds to check the policy against, sorted by their names, as the reference picks them. */
export function typesToCheck(spec: ValidatingAdmissionPolicySpec, resolver: KindResolver): ResolvedKind[] {
  const kinds = new Map<string, ResolvedKind>();
  for (const rule of spec.matchConstraints?.resourceRules ?? []) {
    const groups = exactNames(rule.apiGroups);
    const versions = exactNames(rule.apiVersions);
    const resources = (rule.resources ?? []).filter((resource) => !/[*/]/.test(resource)).sort();
    let count = 0;
    for (const group of groups) {
      for (const version of versions) {
        for (const resource of resources) {
          const kind = resolver.kindOfResource({ group, version, resource });
          if (kind === undefined) continue;
          kinds.set(gvkString(kind.gvk), kind);
          if (++count === MAX_TYPES_TO_CHECK) return sortedKinds(kinds);
        }
      }
    }
  }
  return sortedKinds(kinds);
}

function sortedKinds(kinds: Map<string, ResolvedKind>): ResolvedKind[] {
  return [...kinds.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, kind]) => kind);
}

function parseApiVersion(apiVersion: string | undefined): { group: string; version: string } {
  const [first, second] = (apiVersion ?? '').split('/', 2);
  return second === undefined ? { group: '', version: first } : { group: first, version: second };
}

/** The policy's warnings, in the order of its validations; empty when every expression checks. */
export function typeCheckPolicy(spec: ValidatingAdmissionPolicySpec, resolver: KindResolver): ExpressionWarning[] {
  const kinds = typesToCheck(spec, resolver);
  if (kinds.length === 0 || (spec.validations ?? []).length === 0) return [];
  const paramKind = spec.paramKind?.kind
    ? { ...parseApiVersion(spec.paramKind.apiVersion), kind: spec.paramKind.kind }
    : undefined;
  const params = paramKind ? { schema: resolver.schemaOfKind(paramKind) } : undefined;
  const namespace = resolver.schemaOfKind({ group: '', version: 'v1', kind: 'Namespace' });
  const compilers = kinds.map((kind) => ({
    gvk: kind.gvk,
    // The reference type-checks stored policies in its StoredExpressions environment.
    compilers: policyCompilers({ object: kind.schema, params, namespace }, spec.variables ?? [], {
      environment: 'stored',
    }),
  }));
  const check = (expression: string, use: keyof PolicyCompilers): string => {
    const failures = compilers.flatMap(({ gvk, compilers: forKind }) => {
      const result = forKind[use].compile(expression);
      return result.ok ? [] : [`${gvkString(gvk)}: ${result.error}\n`];
    });
    return failures.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  for (const [index, validation] of (spec.validations ?? []).entries()) {
    const expressionWarning = check(validation.expression, 'expressions');
    if (expressionWarning)
      warnings.push({ fieldRef: `spec.validations[${index}].expression`, warning: expressionWarning });
    if (!validation.messageExpression) continue;
    const messageWarning = check(validation.messageExpression, 'messages');
    if (messageWarning)
      warnings.push({ fieldRef: `spec.validations[${index}].messageExpression`, warning: messageWarning });
  }
  return warnings;
}
