/**
 * Type-checking a ValidatingAdmissionPolicy against the kinds it matches, for its
 * `status.typeChecking` (the reference's TypeChecker, which only warns: a policy is enforced
 * the same whatever its warnings say).
 *
 * The kinds: every group × version × resource of matchConstraints.resourceRules, sorted, that
 * the server serves, at most 10; a rule with a wildcard group or version is skipped, as are
 * wildcard and subresource names. Each validation's expression and messageExpression is compiled
 * with `object` and `oldObject` typed by the kind's schema, `params` by the paramKind's,
 * `namespaceObject` as a Namespace and `variables` by what each variable's expression gives
 * (dynamic when it does not compile, or is not a plain value). A warning names each kind that
 * failed, `<group>/<version>, Kind=<kind>: <errors>`, one paragraph per kind.
 */
import { ExpressionCompiler, type VariableDeclarations } from '../../cel/environment';
import type { CelSchema } from '../../cel/schema-types';
import { AUTHORIZER_VARIABLES } from '../request-authorizer';
import type { GroupVersionKind, ResolvedKind } from './kind-schemas';
import type { ValidatingAdmissionPolicySpec } from './types';

const MAX_TYPES_TO_CHECK = 10;

export interface ExpressionWarning {
  readonly fieldRef: string;
  readonly warning: string;
}

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

/** The schema standing for a variable of this CEL type; dynamic for anything but plain values. */
function schemaOfCelType(type: string): CelSchema {
  const scalars: Readonly<Record<string, CelSchema>> = {
    string: { type: 'string' },
    int: { type: 'integer' },
    double: { type: 'number' },
    bool: { type: 'boolean' },
    bytes: { type: 'string', format: 'byte' },
    'google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
    'google.protobuf.Duration': { type: 'string', format: 'duration' },
  };
  if (scalars[type] !== undefined) return scalars[type];
  const list = /^list<(.+)>$/.exec(type);
  if (list) return { type: 'array', items: schemaOfCelType(list[1]) };
  const map = /^map<string, (.+)>$/.exec(type);
  if (map) return { type: 'object', additionalProperties: schemaOfCelType(map[1]) };
  return {};
}

function parseApiVersion(apiVersion: string | undefined): { group: string; version: string } {
  const [first, second] = (apiVersion ?? '').split('/', 2);
  return second === undefined ? { group: '', version: first } : { group: first, version: second };
}

/** The declarations expressions are checked with for one kind. */
function declarations(kind: CelSchema, context: { params?: CelSchema; namespace?: CelSchema }, variables: Record<string, CelSchema>): VariableDeclarations {
  return {
    object: { schema: kind },
    oldObject: { schema: kind },
    request: 'dyn',
    params: context.params ? { schema: context.params } : 'dyn',
    namespaceObject: context.namespace ? { schema: context.namespace } : 'dyn',
    variables: { schema: { type: 'object', properties: { ...variables } } },
    ...AUTHORIZER_VARIABLES,
  };
}

/** A compiler for one kind, with the policy's variables typed in order. */
function compilerFor(kind: CelSchema, spec: ValidatingAdmissionPolicySpec, context: { params?: CelSchema; namespace?: CelSchema }): ExpressionCompiler {
  const variables: Record<string, CelSchema> = {};
  let compiler = new ExpressionCompiler(declarations(kind, context, variables));
  for (const { name, expression } of spec.variables ?? []) {
    const result = compiler.compile(expression);
    variables[name] = result.ok ? schemaOfCelType(result.compiled.outputType) : {};
    compiler = new ExpressionCompiler(declarations(kind, context, variables));
  }
  return compiler;
}

/** The policy's warnings, in the order of its validations; empty when every expression checks. */
export function typeCheckPolicy(spec: ValidatingAdmissionPolicySpec, resolver: KindResolver): ExpressionWarning[] {
  const kinds = typesToCheck(spec, resolver);
  if (kinds.length === 0 || (spec.validations ?? []).length === 0) return [];
  const paramKind = spec.paramKind?.kind ? { ...parseApiVersion(spec.paramKind.apiVersion), kind: spec.paramKind.kind } : undefined;
  const context = {
    params: paramKind ? resolver.schemaOfKind(paramKind) : undefined,
    namespace: resolver.schemaOfKind({ group: '', version: 'v1', kind: 'Namespace' }),
  };
  const compilers = kinds.map((kind) => ({ gvk: kind.gvk, compiler: compilerFor(kind.schema, spec, context) }));
  const check = (expression: string): string => {
    const failures = compilers.flatMap(({ gvk, compiler }) => {
      const result = compiler.compile(expression);
      return result.ok ? [] : [`${gvkString(gvk)}: ${result.error}\n`];
    });
    return failures.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  for (const [index, validation] of (spec.validations ?? []).entries()) {
    const expressionWarning = check(validation.expression);
    if (expressionWarning) warnings.push({ fieldRef: `spec.validations[${index}].expression`, warning: expressionWarning });
    if (!validation.messageExpression) continue;
    const messageWarning = check(validation.messageExpression);
    if (messageWarning) warnings.push({ fieldRef: `spec.validations[${index}].messageExpression`, warning: messageWarning });
  }
  return warnings;
}
