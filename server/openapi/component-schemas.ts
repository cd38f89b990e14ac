/**
 * The schemas an OpenAPI document carries: the definitions its operations name and everything
 * they reach through `$ref`, rendered for OpenAPI v2 (`#/definitions/...`) or v3
 * (`#/components/schemas/...`). Project-private keywords (`x-capstan-*`, the protobuf field
 * numbers) are stripped, and in v2 the defaults; in v3 a `$ref` with sibling keywords becomes `allOf: [{$ref}]` plus the
 * siblings, since OpenAPI 3.0 ignores a reference's siblings (the reference renders it so).
 */
import type { GroupVersionKind } from '../../api/identity';

/** A JSON Schema object (as served: OpenAPI v2 or v3 form). */
export interface SchemaObject {
  readonly [keyword: string]: unknown;
}

/**
 * Definitions as the schema data stores them (server/schema/definitions.ts: OpenAPI v2 form,
 * refs to `#/definitions/`); read here as plain JSON.
 */
export type Definitions = Readonly<Record<string, object>>;

export type OpenAPIFlavour = 'v2' | 'v3';

const SOURCE_REF_PREFIX = '#/definitions/';
const PRIVATE_KEYWORD_PREFIX = 'x-capstan-';
/** The types a v3 document offers as `oneOf` where v2 says `type: string` (IntOrString, Quantity). */
const V3_ONE_OF_KEYWORD = 'x-capstan-openapi-v3-one-of';
const GVK_EXTENSION = 'x-kubernetes-group-version-kind';
/** A definition's OpenAPI v2 form, where it differs from the v3 one (custom resources: published-schema.ts). */
export const OPENAPI_V2_FORM = 'x-capstan-openapi-v2';

/**
 * A stand-in for a definition the schema data lacks (a custom resource before its schema is
 * published): any object, so documents stay valid and clients still find the kind.
 */
const OPEN_OBJECT: object = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** Names of `roots` and every definition reachable from them, sorted. */
export function definitionClosure(definitions: Definitions, roots: Iterable<string>): string[] {
  const reached = new Set<string>();
  const pending = [...roots];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (reached.has(name)) continue;
    reached.add(name);
    const schema = definitions[name];
    if (schema !== undefined) collectRefs(schema, pending);
  }
  return [...reached].sort();
}

/**
 * The rendered schemas of `names`. `kinds` adds `x-kubernetes-group-version-kind` entries to
 * the definitions of served kinds that do not carry one already.
 */
export function renderSchemas(options: {
  definitions: Definitions;
  names: readonly string[];
  flavour: OpenAPIFlavour;
  kinds: ReadonlyMap<string, readonly GroupVersionKind[]>;
}): Record<string, SchemaObject> {
  const rendered: Record<string, SchemaObject> = {};
  for (const name of options.names) {
    const schema = renderSchema(options.definitions[name] ?? OPEN_OBJECT, options.flavour) as Record<string, unknown>;
    const kinds = options.kinds.get(name);
    rendered[name] =
      kinds === undefined
        ? schema
        : inReferenceOrder({ ...schema, [GVK_EXTENSION]: mergeKinds(schema[GVK_EXTENSION], kinds) }, options.flavour);
  }
  return rendered;
}

export function refTo(name: string, flavour: OpenAPIFlavour): string {
  return flavour === 'v2' ? `${SOURCE_REF_PREFIX}${name}` : `#/components/schemas/${name}`;
}

/**
 * The order the reference writes a schema's keywords in: its Go schema type's fields, then in v3
 * the extensions by name, then `$ref`, then the Swagger-only fields; in v2, whose encoder writes
 * the extensions last, the Swagger-only fields, `$ref`, then the extensions. The maps among them (properties,
 * and any JSON value a keyword holds: default, enum, example, an extension's) by key, as Go
 * writes maps. Keeping it makes the documents' bytes the reference's.
 */
const SCHEMA_KEYWORD_ORDER = [
  'id',
  'description',
  'type',
  'nullable',
  'format',
  'title',
  'default',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'additionalProperties',
  'patternProperties',
  'dependencies',
  'additionalItems',
  'definitions',
];
const V3_AFTER_EXTENSIONS_ORDER = ['$ref', '$schema', 'discriminator', 'readOnly', 'externalDocs', 'example'];
const V2_BEFORE_EXTENSIONS_ORDER = ['discriminator', 'readOnly', 'externalDocs', 'example', '$schema', '$ref'];
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'dependencies', 'definitions']);
const SCHEMA_VALUED = new Set(['items', 'not', 'additionalProperties', 'additionalItems']);
const SCHEMA_LISTS = new Set(['allOf', 'oneOf', 'anyOf']);

/** Each flavour's ranks: the keywords before the extensions, then the extensions, then those after them. */
function keywordRanks(before: readonly string[], after: readonly string[]): (keyword: string) => number {
  const ranks = new Map<string, number>([
    ...before.map((keyword, index) => [keyword, index] as const),
    ...after.map((keyword, index) => [keyword, before.length + 1 + index] as const),
  ]);
  const extensionRank = before.length;
  const unknownRank = before.length + 1 + after.length;
  return (keyword) => ranks.get(keyword) ?? (keyword.startsWith('x-') ? extensionRank : unknownRank);
}

const KEYWORD_RANK: Readonly<Record<OpenAPIFlavour, (keyword: string) => number>> = {
  v2: keywordRanks([...SCHEMA_KEYWORD_ORDER, ...V2_BEFORE_EXTENSIONS_ORDER], []),
  v3: keywordRanks(SCHEMA_KEYWORD_ORDER, V3_AFTER_EXTENSIONS_ORDER),
};

/**
 * A CRD's validation rules are a Go struct in the reference, written in its fields' order in
 * v3; its v2 document passes through the aggregator, which reads them back as maps and writes
 * their keys sorted, as every extension's value.
 */
const VALIDATION_RULES = 'x-kubernetes-validations';
const VALIDATION_RULE_ORDER = ['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf'];

function inFieldOrder(value: unknown, order: readonly string[]): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const rank = (key: string) => (order.indexOf(key) >= 0 ? order.indexOf(key) : order.length);
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => rank(a) - rank(b)));
}

function byKey<T>(entries: Array<[string, T]>): Array<[string, T]> {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A JSON value with every object's keys sorted, as Go writes a map. */
function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(byKey(Object.entries(value)).map(([key, child]) => [key, withSortedKeys(child)]));
}

/** The keywords of a rendered schema (its subschemas rendered already) in the reference's order. */
function inReferenceOrder(schema: Record<string, unknown>, flavour: OpenAPIFlavour): Record<string, unknown> {
  const rank = KEYWORD_RANK[flavour];
  const keywords = Object.keys(schema).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(keywords.map((keyword) => [keyword, schema[keyword]]));
}

/** A schema as served: refs in the flavour's form, private keywords out, keywords in the reference's order. */
function renderSchema(value: unknown, flavour: OpenAPIFlavour): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const v2Form = (value as Record<string, unknown>)[OPENAPI_V2_FORM];
  if (flavour === 'v2' && v2Form !== undefined) return renderSchema(v2Form, flavour);
  const render = (schema: unknown) => renderSchema(schema, flavour);
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (key.startsWith(PRIVATE_KEYWORD_PREFIX)) continue;
    // The reference's v2 handler prunes every default out of its definitions (kube-openapi's
    // PruneDefaults, in apiserver's routes/openapi.go); v3 keeps them.
    if (flavour === 'v2' && key === 'default') continue;
    if (key === '$ref' && typeof child === 'string' && child.startsWith(SOURCE_REF_PREFIX)) {
      result[key] = refTo(child.slice(SOURCE_REF_PREFIX.length), flavour);
    } else if (SCHEMA_MAPS.has(key) && child !== null && typeof child === 'object') {
      result[key] = Object.fromEntries(byKey(Object.entries(child)).map(([name, schema]) => [name, render(schema)]));
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(child)) {
      result[key] = child.map(render);
    } else if (SCHEMA_VALUED.has(key)) {
      result[key] = Array.isArray(child) ? child.map(render) : render(child);
    } else if (key === VALIDATION_RULES && Array.isArray(child) && flavour === 'v3') {
      result[key] = child.map((rule) => inFieldOrder(rule, VALIDATION_RULE_ORDER));
    } else {
      result[key] = withSortedKeys(child);
    }
  }
  const oneOf = (value as Record<string, unknown>)[V3_ONE_OF_KEYWORD];
  if (flavour === 'v3' && Array.isArray(oneOf)) {
    delete result.type;
    result.oneOf = oneOf.map((type) => ({ type }));
  }
  if (flavour === 'v3' && typeof result.$ref === 'string' && Object.keys(result).length > 1) {
    const { $ref, ...siblings } = result;
    return inReferenceOrder({ allOf: [{ $ref }], ...siblings }, flavour);
  }
  return inReferenceOrder(result, flavour);
}

function collectRefs(value: unknown, into: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) collectRefs(item, into);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string' && child.startsWith(SOURCE_REF_PREFIX)) {
      into.push(child.slice(SOURCE_REF_PREFIX.length));
    } else {
      collectRefs(child, into);
    }
  }
}

function mergeKinds(existing: unknown, kinds: readonly GroupVersionKind[]): GroupVersionKind[] {
  const merged: GroupVersionKind[] = Array.isArray(existing) ? [...(existing as GroupVersionKind[])] : [];
  for (const kind of kinds) {
    const present = merged.some((m) => m.group === kind.group && m.version === kind.version && m.kind === kind.kind);
    if (!present) merged.push({ group: kind.group, kind: kind.kind, version: kind.version } as GroupVersionKind);
  }
  return merged;
}
