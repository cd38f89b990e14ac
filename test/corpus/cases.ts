/**
 * The malformed-request corpus: requests generated systematically from the registry and the
 * schema (a wrong type and a null at sampled paths of every kind, every query parameter with
 * bad values, every patch type, every media type, routing), each with a stable id. The same
 * list is sent to the reference kube-apiserver (record.ts writes what it answered into
 * expected.json) and to capstan (corpus.test.ts compares). Everything is deterministic: the
 * ids, the order and the bodies never depend on time or randomness.
 */
import type { ResourceType } from '../../server/registry/types';
import { resolveRef, schemaData, type Schema } from '../../server/schema/definitions';
import { VALID_BODIES, type JsonObject, type JsonValue } from './valid-objects';
import { builtinRegistry } from '../../server/builtin-types';
import admissionFixture from '../server/registry/fixtures/admission-configuration-validation.json';
import affinityFixture from '../server/registry/fixtures/affinity-validation.json';

export interface CorpusRequest {
  readonly method: string;
  /** Path and query, already percent-encoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Sent as written, request line and headers, on a connection of its own that the request
   * asks to close (method, path and headers above then only describe it): for what an HTTP
   * client library would not send, such as a second Host or an HTTP/2.0 request line.
   */
  readonly rawHead?: string;
  /** A collection that must answer 200 before this is sent: a CRD's, by the first fixture of its kind. */
  readonly awaitServed?: string;
}

export interface CorpusCase extends CorpusRequest {
  readonly id: string;
  /**
   * A collection path (all namespaces) whose objects must be unchanged after a refused request:
   * what the request would have written to.
   */
  readonly collection: string;
  /**
   * The reference's HTTP server answers it in plain text before any handler (Go's net/http:
   * a 505 for HTTP/2.0, a 501 for a transfer coding it does not know), or its mux does (a 404
   * outside the API), or its OpenAPI handlers do (a bare 406): capstan must give the same code,
   * 5xx included, and no Status is expected.
   */
  readonly plainAnswer?: true;
}

export const NAMESPACE = 'corpus';
const JSON_TYPE = { 'content-type': 'application/json' };
/** Paths sampled per kind for the wrong-type and null cases. */
const PATHS_PER_KIND = 14;
/** How deep the schema walk goes below the object (spec.template.spec.containers[0].image is 6). */
const MAX_PATH_DEPTH = 6;

const registry = builtinRegistry();
const definitions = schemaData().definitions;

export function servedTypes(): readonly ResourceType[] {
  return registry.all();
}

export function apiPath(type: ResourceType): string {
  return type.group === '' ? `/api/${type.versions[0].version}` : `/apis/${type.group}/${type.versions[0].version}`;
}

export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.versions[0].version : `${type.group}/${type.versions[0].version}`;
}

/** The collection in the corpus's namespace (namespaced kinds) or the cluster (the others). */
export function collectionPath(type: ResourceType, namespace = NAMESPACE): string {
  return type.namespaced
    ? `${apiPath(type)}/namespaces/${namespace}/${type.resource}`
    : `${apiPath(type)}/${type.resource}`;
}

/** Every object of the kind, in every namespace. */
export function allObjectsPath(type: ResourceType): string {
  return `${apiPath(type)}/${type.resource}`;
}

export function validObject(type: ResourceType, name: string): JsonObject {
  const metadata: JsonObject = type.namespaced ? { name, namespace: NAMESPACE } : { name };
  return {
    apiVersion: apiVersionOf(type),
    kind: type.kind,
    metadata,
    ...structuredClone(VALID_BODIES[`${type.group}/${type.kind}`] ?? {}),
  };
}

/** Objects the cases act on, created (in this order) before any case runs. */
export function fixtures(): CorpusRequest[] {
  const byResource = (group: string, resource: string) =>
    servedTypes().find((t) => t.group === group && t.resource === resource)!;
  const namespace = {
    method: 'POST',
    path: '/api/v1/namespaces',
    headers: JSON_TYPE,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }),
  };
  const objects = [
    byResource('', 'configmaps'),
    byResource('apps', 'deployments'),
    byResource('', 'nodes'),
    byResource('', 'pods'),
  ].map((type) => ({
    method: 'POST',
    path: collectionPath(type),
    headers: JSON_TYPE,
    body: JSON.stringify(validObject(type, 'fixture')),
  }));
  return [namespace, ...objects, ...customResourceFixtures()];
}

// ---------------------------------------------------------------------------------------------
// Schema paths

export interface SchemaPath {
  /** Segments: a member name, or 0 for the first item of a list. */
  readonly segments: readonly (string | 0)[];
  readonly schema: Schema;
}

export function schemaPaths(definition: Schema): SchemaPath[] {
  const found: SchemaPath[] = [];
  const walk = (schema: Schema, segments: (string | 0)[], seen: readonly string[]) => {
    if (segments.length > MAX_PATH_DEPTH) return;
    const ref = schema.$ref;
    if (ref !== undefined && seen.includes(ref)) return; // recursive types (JSONSchemaProps)
    const resolved = resolveRef(schema);
    const nextSeen = ref === undefined ? seen : [...seen, ref];
    if (segments.length > 0) found.push({ segments, schema: resolved });
    if (resolved.properties) {
      for (const [name, property] of Object.entries(resolved.properties)) {
        // Server-owned members are dropped or refused for reasons of their own, not their type.
        if (segments.length === 0 && (name === 'status' || name === 'apiVersion' || name === 'kind')) continue;
        if (
          segments.length === 1 &&
          segments[0] === 'metadata' &&
          !['name', 'labels', 'annotations', 'finalizers', 'ownerReferences', 'generateName'].includes(name)
        )
          continue;
        walk(property, [...segments, name], nextSeen);
      }
    } else if (resolved.type === 'array' && resolved.items) {
      walk(resolved.items, [...segments, 0], nextSeen);
    } else if (resolved.type === 'object' && resolved.additionalProperties) {
      walk(resolved.additionalProperties, [...segments, 'k'], nextSeen);
    }
  };
  walk(definition, [], []);
  return found;
}

/** An evenly spread, stable sample that always keeps the first paths (metadata, the spec's top). */
function sample<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const picked: T[] = [];
  for (let i = 0; i < count; i++) picked.push(items[Math.floor((i * items.length) / count)]);
  return picked;
}

export function pathText(segments: readonly (string | 0)[]): string {
  return segments
    .map((segment) => (segment === 0 ? '[0]' : `.${segment}`))
    .join('')
    .replace(/^\./, '');
}

/** The object with `value` at the path, creating the objects and lists on the way. */
function withValueAt(object: JsonObject, segments: readonly (string | 0)[], value: JsonValue): JsonObject {
  const copy = structuredClone(object);
  let current: JsonValue = copy;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const last = i === segments.length - 1;
    const nextIsItem = segments[i + 1] === 0;
    const container = current as Record<string | number, JsonValue>;
    if (last) {
      container[segment] = value;
      break;
    }
    const existing = container[segment];
    if (existing === undefined || existing === null || typeof existing !== 'object')
      container[segment] = nextIsItem ? [] : {};
    current = container[segment];
  }
  return copy;
}

/** A value of another JSON type than the schema's; an object fits no scalar, quantity or int-or-string. */
function wrongTypeFor(schema: Schema): JsonValue {
  if (schema.type === 'object' || schema.properties || schema.type === 'array') return 'x';
  if (schema.type === 'integer' || schema.type === 'number' || schema.type === 'boolean') return 'x';
  return { x: 1 };
}

function schemaCases(type: ResourceType, index: number): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const collection = collectionPath(type);
  const all = allObjectsPath(type);
  const post = (id: string, body: string, headers: Record<string, string> = JSON_TYPE): CorpusCase => ({
    id,
    method: 'POST',
    path: collection,
    headers,
    body,
    collection: all,
  });
  const name = (n: number | string) => `k${index}-${n}`;
  const prefix = `schema/${type.group || 'core'}/${type.kind}`;

  // Whole-body shapes.
  for (const [label, body] of [
    ['null', 'null'],
    ['list', '[]'],
    ['string', '"x"'],
    ['number', '5'],
    ['empty', '{}'],
    ['empty-body', ''],
  ] as const) {
    cases.push(post(`${prefix}/body-${label}`, body));
  }
  const definition = definitions[type.versions[0].definition];
  const paths = sample(schemaPaths(definition), PATHS_PER_KIND);
  paths.forEach((path, n) => {
    const text = pathText(path.segments);
    cases.push(
      post(
        `${prefix}/null/${text}`,
        JSON.stringify(withValueAt(validObject(type, name(`n${n}`)), path.segments, null)),
      ),
    );
    cases.push(
      post(
        `${prefix}/wrong-type/${text}`,
        JSON.stringify(withValueAt(validObject(type, name(`w${n}`)), path.segments, wrongTypeFor(path.schema))),
      ),
    );
  });
  // Numbers out of range or not written as integers, at the kind's first integer members.
  const integers = schemaPaths(definition)
    .filter((path) => path.schema.type === 'integer')
    .slice(0, 2);
  integers.forEach((path, n) => {
    const text = pathText(path.segments);
    const numbers: [string, string][] = [
      ['int32-overflow', path.schema.format === 'int64' ? '9223372036854775808' : '2147483648'],
      ['exponent', '1e2'],
      ['fraction', '1.5'],
      ['29-digits', '12345678901234567890123456789'],
      ['negative-overflow', path.schema.format === 'int64' ? '-9223372036854775809' : '-2147483649'],
    ];
    numbers.forEach(([label, literal], m) => {
      const marker = '"__NUMBER__"';
      const body = JSON.stringify(
        withValueAt(validObject(type, name(`i${n}${m}`)), path.segments, '__NUMBER__'),
      ).replace(marker, literal);
      cases.push(post(`${prefix}/number-${label}/${text}`, body));
    });
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Query parameters

const BAD_VALUES = ['', 'abc', '-5', '1e2', '99999999999999999999', '%zz', 'true'];
const QUERY_PARAMETERS = [
  'limit',
  'timeoutSeconds',
  'resourceVersion',
  'resourceVersionMatch',
  'labelSelector',
  'fieldSelector',
  'continue',
  'watch',
  'allowWatchBookmarks',
  'sendInitialEvents',
  'dryRun',
  'fieldManager',
  'fieldValidation',
  'gracePeriodSeconds',
  'propagationPolicy',
  'orphanDependents',
  'pretty',
  'force',
];

function queryCases(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const configMaps = '/api/v1/namespaces/corpus/configmaps';
  const all = '/api/v1/configmaps';
  const verbs: {
    label: string;
    method: string;
    path: string;
    body?: (n: string) => string;
    headers?: Record<string, string>;
  }[] = [
    { label: 'list', method: 'GET', path: configMaps },
    { label: 'get', method: 'GET', path: `${configMaps}/fixture` },
    {
      label: 'create',
      method: 'POST',
      path: configMaps,
      body: (n) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n } }),
      headers: JSON_TYPE,
    },
    {
      label: 'merge-patch',
      method: 'PATCH',
      path: `${configMaps}/fixture`,
      body: () => '{"data":{"q":"1"}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    },
    // Deletes name nothing that exists, so that a refused parameter and an accepted one leave the same store.
    { label: 'delete', method: 'DELETE', path: `${configMaps}/missing` },
    { label: 'deletecollection', method: 'DELETE', path: '/api/v1/namespaces/corpus-none/configmaps' },
  ];
  let n = 0;
  for (const verb of verbs) {
    for (const parameter of QUERY_PARAMETERS) {
      // Any `watch` value but false opens a stream that never ends; the watch cases below bound it.
      if (verb.label === 'list' && parameter === 'watch') continue;
      for (const value of BAD_VALUES) {
        const encoded = value === '%zz' ? '%zz' : encodeURIComponent(value);
        cases.push({
          id: `query/${verb.label}/${parameter}=${value}`,
          method: verb.method,
          path: `${verb.path}?${parameter}=${encoded}`,
          headers: verb.headers ?? {},
          body: verb.body?.(`q${n++}`),
          collection: all,
        });
      }
    }
  }
  // Watches whose bound is malformed must be refused, not opened without one.
  for (const value of ['', 'abc', '-5', '1e2', '99999999999999999999']) {
    cases.push({
      id: `query/watch/timeoutSeconds=${value}`,
      method: 'GET',
      path: `${configMaps}?watch=1&timeoutSeconds=${encodeURIComponent(value)}`,
      headers: {},
      collection: all,
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Patches

const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

function deep(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

function patchCases(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const targets = [
    {
      label: 'configmap',
      path: '/api/v1/namespaces/corpus/configmaps/fixture',
      collection: '/api/v1/configmaps',
      apiVersion: 'v1',
      kind: 'ConfigMap',
    },
    {
      label: 'deployment',
      path: '/apis/apps/v1/namespaces/corpus/deployments/fixture',
      collection: '/apis/apps/v1/deployments',
      apiVersion: 'apps/v1',
      kind: 'Deployment',
    },
  ];
  const bodies: Record<keyof typeof PATCH_TYPES, [string, string][]> = {
    json: [
      ['null', 'null'],
      ['object', '{}'],
      ['string', '"x"'],
      ['not-json', '[{'],
      ['op-missing', '[{"path":"/data"}]'],
      ['op-unknown', '[{"op":"frob","path":"/data"}]'],
      ['remove-root', '[{"op":"remove","path":""}]'],
      ['remove-missing', '[{"op":"remove","path":"/nope"}]'],
      ['path-not-pointer', '[{"op":"add","path":"data","value":1}]'],
      ['add-no-value', '[{"op":"add","path":"/metadata/labels"}]'],
      ['test-fails', '[{"op":"test","path":"/metadata/name","value":"other"}]'],
      ['item-null', '[null]'],
      ['item-string', '["x"]'],
      ['replace-metadata-null', '[{"op":"replace","path":"/metadata","value":null}]'],
      ['label-null', '[{"op":"add","path":"/metadata/labels","value":{"a":null}}]'],
      ['move-from-missing', '[{"op":"move","from":"/nope","path":"/x"}]'],
      ['copy-into-itself', '[{"op":"copy","from":"/metadata","path":"/metadata/x"}]'],
      ['index-out-of-range', '[{"op":"add","path":"/metadata/finalizers/5","value":"a"}]'],
      ['deep-100000', `[{"op":"add","path":"/metadata/labels","value":${deep(100000)}}]`],
      ['replace-kind-number', '[{"op":"replace","path":"/kind","value":5}]'],
    ],
    merge: [
      ['null', 'null'],
      ['list', '[]'],
      ['string', '"x"'],
      ['not-json', '{'],
      ['metadata-string', '{"metadata":"x"}'],
      ['label-number', '{"metadata":{"labels":{"a":1}}}'],
      ['labels-list', '{"metadata":{"labels":[]}}'],
      ['name-number', '{"metadata":{"name":5}}'],
      ['deep-100000', `{"metadata":{"annotations":${deepObject(100000)}}}`],
      ['deep-list-100000', `{"x":${deep(100000)}}`],
      ['kind-other', '{"kind":"Secret"}'],
      ['apiVersion-other', '{"apiVersion":"v2"}'],
      ['name-other', '{"metadata":{"name":"other"}}'],
      ['charset-utf16', '{"data":{"a":"b"}}'],
    ],
    strategic: [
      ['null', 'null'],
      ['list', '[]'],
      ['not-json', '{'],
      ['patch-directive-bogus', '{"$patch":"bogus"}'],
      ['patch-directive-number', '{"$patch":5}'],
      ['patch-replace', '{"$patch":"replace"}'],
      ['patch-delete', '{"$patch":"delete"}'],
      ['delete-from-primitive-list-bad', '{"metadata":{"$deleteFromPrimitiveList/finalizers":"x"}}'],
      ['set-element-order-bad', '{"spec":{"template":{"spec":{"$setElementOrder/containers":"x"}}}}'],
      ['retain-keys-bad', '{"spec":{"strategy":{"$retainKeys":"x"}}}'],
      ['containers-null-item', '{"spec":{"template":{"spec":{"containers":[null]}}}}'],
      ['containers-no-merge-key', '{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}'],
      ['containers-string', '{"spec":{"template":{"spec":{"containers":"x"}}}}'],
      ['replicas-string', '{"spec":{"replicas":"x"}}'],
      ['replicas-overflow', '{"spec":{"replicas":2147483648}}'],
      ['max-surge-abc', '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":"abc"}}}}'],
      ['deep-100000', `{"metadata":{"annotations":${deepObject(100000)}}}`],
      ['label-null', '{"metadata":{"labels":{"a":null}}}'],
    ],
    apply: [
      ['empty', ''],
      ['null', 'null'],
      ['list', '[]'],
      ['scalar', 'x'],
      ['not-yaml', 'a: [b'],
      ['no-kind', 'apiVersion: v1\nmetadata:\n  name: fixture\n'],
      ['duplicate-key', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixture\ndata:\n  a: "1"\n  a: "2"\n'],
      ['alias-unresolved', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixture\ndata: *nope\n'],
      ['alias-bomb', aliasBomb()],
      ['tab-indent', 'apiVersion: v1\n\tkind: ConfigMap\n'],
      ['data-list', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixture\ndata: [1]\n'],
      ['label-null', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixture\n  labels:\n    a: null\n'],
      ['deep-10001', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixture\ndata: ${deep(10001)}\n`],
      ['name-other', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n'],
      ['kind-other', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: fixture\n'],
      ['replicas-string', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: fixture\nspec:\n  replicas: x\n'],
      [
        'replicas-overflow',
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: fixture\nspec:\n  replicas: 2147483648\n',
      ],
      [
        'containers-null',
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: fixture\nspec:\n  template:\n    spec:\n      containers: [null]\n',
      ],
    ],
  };
  for (const target of targets) {
    for (const [patchType, contentType] of Object.entries(PATCH_TYPES) as [keyof typeof PATCH_TYPES, string][]) {
      for (const [label, body] of bodies[patchType]) {
        const charset = label === 'charset-utf16' ? '; charset=utf-16' : '';
        const query = patchType === 'apply' ? '?fieldManager=corpus' : '';
        cases.push({
          id: `patch/${target.label}/${patchType}/${label}`,
          method: 'PATCH',
          path: `${target.path}${query}`,
          headers: { 'content-type': contentType + charset },
          body,
          collection: target.collection,
        });
      }
    }
    // Every patch type on a missing object, and with no body at all.
    for (const [patchType, contentType] of Object.entries(PATCH_TYPES)) {
      cases.push({
        id: `patch/${target.label}/${patchType}/no-body`,
        method: 'PATCH',
        path: `${target.path}?fieldManager=corpus`,
        headers: { 'content-type': contentType },
        body: '',
        collection: target.collection,
      });
    }
  }
  return cases;
}

/** The "billion laughs": nine levels of nine aliases each. */
function aliasBomb(): string {
  const lines = [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: fixture',
    'x:',
    '  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ];
  const letters = 'abcdefghi';
  for (let i = 1; i < letters.length; i++) {
    const previous = `*${letters[i - 1]}`;
    lines.push(`  ${letters[i]}: &${letters[i]} [${Array(9).fill(previous).join(',')}]`);
  }
  return lines.join('\n') + '\n';
}

/** A ConfigMap in YAML with the lines after its name. */
function yamlConfigMap(name: string, lines: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${lines}`;
}

// ---------------------------------------------------------------------------------------------
// Media types

function mediaTypeCases(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const path = '/api/v1/namespaces/corpus/configmaps';
  const body = (name: string) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } });
  const contentTypes: [string, string | undefined, (name: string) => string][] = [
    ['none', undefined, body],
    ['text-plain', 'text/plain', body],
    ['json-utf16', 'application/json; charset=utf-16', body],
    ['json-utf8', 'application/json; charset=utf-8', body],
    ['json-bogus-param', 'application/json; foo', body],
    ['bogus', 'application/bogus', body],
    ['empty', '', body],
    ['protobuf-garbage', 'application/vnd.kubernetes.protobuf', () => 'garbage'],
    ['protobuf-json', 'application/vnd.kubernetes.protobuf', body],
    ['cbor-garbage', 'application/cbor', () => 'garbage'],
    [
      'yaml-duplicate-key',
      'application/yaml',
      (name) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n`,
    ],
    [
      'yaml-alias-unresolved',
      'application/yaml',
      (name) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata: *x\n`,
    ],
    ['yaml-alias-bomb', 'application/yaml', () => aliasBomb()],
    [
      'yaml-multi-document',
      'application/yaml',
      (name) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n---\nkind: x\n`,
    ],
    ['yaml-not-yaml', 'application/yaml', () => 'a: [b'],
    [
      'yaml-deep',
      'application/yaml',
      (name) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata: ${deep(20000)}\n`,
    ],
    [
      'json-deep-100000',
      'application/json',
      (name) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":${deep(100000)}}`,
    ],
    [
      'json-deep-object-100000',
      'application/json',
      (name) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":${deepObject(100000)}}}`,
    ],
    [
      'json-duplicate-key',
      'application/json',
      (name) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"1","a":"2"}}`,
    ],
    ['json-trailing-garbage', 'application/json', (name) => `${body(name)}x`],
    ['json-invalid-utf8', 'application/json', (name) => body(name).replace('"b"', '"\udc80"')],
    // Go's mime.ParseMediaType decides before any decoder is chosen.
    ['json-empty-parameters', 'application/json;;;;', body],
    ['json-trailing-semicolon', 'application/json;', body],
    ['json-parameter-without-value', 'application/json;a=', body],
    ['json-parameter-then-text', 'application/json;a=b c', body],
    ['json-unclosed-quote', 'application/json;a="x', body],
    ['json-quoted-parameter', 'application/json;a="x;y"', body],
    ['json-parameter-twice', 'application/json;a=b;a=c', body],
    ['json-parameter-repeated', 'application/json;a=b;a=b', body],
    ['json-space-before-slash', 'application /json', body],
    // YAML read as yaml.v2 and sigs.k8s.io/yaml read it (test/server/codec/yaml-bodies.test.ts).
    ['yaml-bool-for-string', 'application/yaml', (name) => yamlConfigMap(name, 'data:\n  a: yes\n')],
    ['yaml-merge-key', 'application/yaml', (name) => yamlConfigMap(name, '  labels:\n    <<: {m: x}\n')],
    ['yaml-merge-repeated', 'application/yaml', (name) => yamlConfigMap(name, '  labels:\n    <<: {m: x}\n    m: z\n')],
    ['yaml-null-key', 'application/yaml', (name) => yamlConfigMap(name, 'data:\n  ~: b\n')],
    ['yaml-infinity', 'application/yaml', (name) => yamlConfigMap(name, 'data:\n  a: .inf\n')],
    ['yaml-octal-key', 'application/yaml', (name) => yamlConfigMap(name, 'data:\n  010: b\n')],
    ['yaml-sequence-key', 'application/yaml', (name) => yamlConfigMap(name, 'data:\n  ? [a]\n  : b\n')],
  ];
  contentTypes.forEach(([label, contentType, make], n) => {
    for (const validation of ['', '&fieldValidation=Strict']) {
      cases.push({
        id: `media/content-type/${label}${validation ? '/strict' : ''}`,
        method: 'POST',
        path: `${path}?fieldManager=corpus${validation}`,
        headers: contentType === undefined ? {} : { 'content-type': contentType },
        body: make(`m${n}${validation ? 's' : ''}`),
        collection: '/api/v1/configmaps',
      });
    }
  });
  const accepts = [
    'text/plain',
    'application/bogus',
    'application/json;as=Table',
    'application/json;as=Table;v=v1;g=meta.k8s.io;x=y',
    'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
    '*/*;q=0',
    'application/json;q=abc',
  ];
  for (const accept of accepts) {
    for (const [label, target] of [
      ['get', `${path}/fixture`],
      ['list', path],
      ['missing', `${path}/missing`],
    ]) {
      cases.push({
        id: `media/accept/${label}/${accept}`,
        method: 'GET',
        path: target,
        headers: { accept },
        collection: '/api/v1/configmaps',
      });
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Routing

function routingCases(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const methods: [string, string | undefined][] = [
    ['GET', undefined],
    ['POST', '{}'],
    ['PUT', '{}'],
    ['PATCH', '{}'],
    ['DELETE', undefined],
  ];
  for (const type of servedTypes()) {
    const base = allObjectsPath(type);
    const kindId = `${type.group || 'core'}/${type.resource}`;
    if (!type.namespaced) {
      // A cluster-scoped kind under a namespaced path names nothing on the reference.
      for (const [method, body] of methods) {
        const headers: Record<string, string> =
          body === undefined
            ? {}
            : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' };
        const prefix = base.slice(0, base.lastIndexOf('/'));
        for (const [label, path] of [
          ['collection', `${prefix}/namespaces/default/${type.resource}`],
          ['object', `${prefix}/namespaces/default/${type.resource}/fixture`],
        ]) {
          cases.push({
            id: `route/cluster-under-namespace/${kindId}/${method}-${label}`,
            method,
            path,
            headers,
            body,
            collection: base,
          });
        }
      }
    }
    // PUT on a collection names no object.
    cases.push({
      id: `route/put-collection/${kindId}`,
      method: 'PUT',
      path: collectionPath(type),
      headers: JSON_TYPE,
      body: JSON.stringify(validObject(type, 'put')),
      collection: base,
    });
    // Verbs through the legacy watch prefix.
    const watchPath = base.replace(/\/(v1|v2)\//, '/$1/watch/');
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      cases.push({
        id: `route/watch-prefix/${kindId}/${method}`,
        method,
        path: watchPath,
        headers: JSON_TYPE,
        body: method === 'DELETE' ? undefined : '{}',
        collection: base,
      });
    }
  }
  const fixed: [string, string, string, 'plain'?][] = [
    ['GET', '/api/v1/watch', '/api/v1/configmaps'],
    ['GET', '/apis/apps/v1/watch', '/apis/apps/v1/deployments'],
    ['DELETE', '/api/v1/namespaces/corpus/configmaps/fixture/', '/api/v1/configmaps'],
    ['GET', '/api/v1/namespaces/corpus/configmaps/fixture/', '/api/v1/configmaps'],
    ['PUT', '/api/v1/namespaces/corpus/configmaps/fixture/', '/api/v1/configmaps'],
    ['DELETE', '/api/v1/namespaces/corpus/configmaps/fixture/extra/path', '/api/v1/configmaps'],
    ['GET', '/api/v1/namespaces/corpus/nothings', '/api/v1/configmaps'],
    ['GET', '/api/v9/namespaces/corpus/configmaps', '/api/v1/configmaps'],
    // No API web service has an unknown group: Go's mux answers its plain-text 404.
    ['GET', '/apis/nope.example.com/v1/things', '/api/v1/configmaps', 'plain'],
    ['POST', '/api/v1/namespaces/corpus/configmaps/fixture', '/api/v1/configmaps'],
    ['DELETE', '/api/v1/namespaces/corpus/configmaps/fixture/status', '/api/v1/configmaps'],
    ['PUT', '/api/v1/namespaces/corpus/configmaps/fixture/scale', '/api/v1/configmaps'],
    ['GET', '/api/v1/namespaces/corpus/pods/fixture/bogus', '/api/v1/pods'],
    ['POST', '/api/v1/namespaces/corpus/pods/fixture/status', '/api/v1/pods'],
    ['DELETE', '/apis/apps/v1/namespaces/corpus/deployments/fixture/scale', '/apis/apps/v1/deployments'],
    ['OPTIONS', '/api/v1/namespaces/corpus/configmaps', '/api/v1/configmaps'],
    ['GET', '/api/v1/namespaces//configmaps', '/api/v1/configmaps'],
    ['GET', '/api/v1/namespaces/corpus/configmaps/%2e%2e', '/api/v1/configmaps'],
    ['GET', '/api/v1/namespaces/Bad_Name/configmaps', '/api/v1/configmaps'],
    ['POST', '/api/v1/namespaces/missing-ns/configmaps', '/api/v1/configmaps'],
  ];
  for (const [method, path, collection, plain] of fixed) {
    const body =
      method === 'POST' || method === 'PUT'
        ? JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fixture' } })
        : undefined;
    cases.push({
      id: `route/${method}${path}`,
      method,
      path,
      headers: body === undefined ? {} : JSON_TYPE,
      body,
      collection,
      ...(plain === 'plain' ? { plainAnswer: true as const } : {}),
    });
  }
  // Long selectors and continue tokens: past the URL limits, answered rather than reset.
  for (const [label, query] of [
    ['selector-70k', `labelSelector=a%20in%20(${'x,'.repeat(35_000)}y)`],
    ['continue-100k', `continue=${'A'.repeat(100_000)}`],
  ]) {
    cases.push({
      id: `route/long-query/${label}`,
      method: 'GET',
      path: `/api/v1/namespaces/corpus/configmaps?${query}`,
      headers: {},
      collection: '/api/v1/configmaps',
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Parity classes: where the reference refuses what Node or a lenient decoder lets through

/** A list `continue` token as the reference encodes it, with `rv` written as given. */
function continueToken(rv: string): string {
  return tokenOf(`{"v":"meta.k8s.io/v1","rv":${rv},"start":"fixture\\u0000"}`);
}

function tokenOf(json: string): string {
  return Buffer.from(json).toString('base64url');
}

/** The request written out: the connection closes after the answer. */
function rawHead(requestLine: string, headers: readonly string[]): string {
  return [requestLine, ...headers, 'Connection: close', '', ''].join('\r\n');
}

/**
 * What each kind of route makes of an `Accept` (and a GET's `Content-Type`): the reference's
 * go-restful routes (resources, `/api`, a built-in group version, `/version`) check both against
 * what they declare before negotiating, and case counts; its mux routes (`/apis`, a group) only
 * negotiate; discovery answers in YAML and protobuf, aggregated or not; the OpenAPI handlers
 * negotiate on type alone, and `/openapi/v3` not at all.
 */
function routeMediaTypeCases(): CorpusCase[] {
  const aggregated = 'g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
  const paths: [string, string][] = [
    ['list', '/api/v1/namespaces/corpus/configmaps'],
    ['get', '/api/v1/namespaces/corpus/configmaps/fixture'],
    ['status', '/api/v1/namespaces/corpus/pods/fixture/status'],
    ['scale', '/apis/apps/v1/namespaces/corpus/deployments/fixture/scale'],
    ['log', '/api/v1/namespaces/corpus/pods/fixture/log'],
    ['api', '/api'],
    ['api-v1', '/api/v1'],
    ['apis', '/apis'],
    ['apis-apps', '/apis/apps'],
    ['apis-apps-v1', '/apis/apps/v1'],
    ['version', '/version'],
    ['openapi-v2', '/openapi/v2'],
    ['openapi-v3', '/openapi/v3'],
    ['openapi-v3-apps', '/openapi/v3/apis/apps/v1'],
  ];
  const accepts: [string, string][] = [
    ['type-wildcard', 'application/*'],
    ['upper-case', 'APPLICATION/JSON'],
    ['html', 'text/html'],
    ['html-or-anything', 'text/html, */*'],
    ['yaml', 'application/yaml'],
    ['protobuf', 'application/vnd.kubernetes.protobuf'],
    ['table', 'application/json;as=Table;g=meta.k8s.io;v=v1'],
    ['json-weight-0', 'application/json;q=0'],
    ['aggregated-yaml', `application/yaml;${aggregated}`],
    ['aggregated-protobuf', `application/vnd.kubernetes.protobuf;${aggregated}`],
    ['aggregated-after-json', `application/json, application/json;${aggregated}`],
  ];
  const cases: CorpusCase[] = paths.flatMap(([label, path]) =>
    accepts.map(([acceptLabel, accept]) => ({
      id: `parity/route-media/${label}/${acceptLabel}`,
      method: 'GET',
      path,
      headers: { accept },
      // Reads: nothing may change.
      collection: '/api/v1/configmaps',
      ...(label.startsWith('openapi') ? { plainAnswer: true as const } : {}),
    })),
  );
  // A header sent twice is read by its first line (Go's Header.Get); Node joins the lines.
  for (const [label, path] of paths.filter(([label]) => ['list', 'apis', 'version'].includes(label))) {
    for (const [linesLabel, lines] of [
      ['html-then-json', ['Accept: text/html', 'Accept: application/json']],
      ['json-then-html', ['Accept: application/json', 'Accept: text/html']],
    ] as const) {
      cases.push({
        id: `parity/route-media/${label}/accept-twice-${linesLabel}`,
        method: 'GET',
        path,
        headers: {},
        rawHead: rawHead(`GET ${path} HTTP/1.1`, ['Host: 127.0.0.1', ...lines]),
        collection: '/api/v1/configmaps',
      });
    }
  }
  for (const [label, path] of paths.filter(([label]) =>
    ['list', 'api', 'apis', 'apis-apps-v1', 'version'].includes(label),
  )) {
    cases.push({
      id: `parity/route-media/${label}/get-with-text-body-type`,
      method: 'GET',
      path,
      headers: { 'content-type': 'text/plain' },
      collection: '/api/v1/configmaps',
    });
  }
  return cases;
}

function parityCases(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const configMaps = '/api/v1/namespaces/corpus/configmaps';
  const all = '/api/v1/configmaps';
  // A continue token whose revision is no int64 is refused at once, not waited on; below -1
  // (the newest) a revision is read as the newest too; Go's decoder matches member names
  // without case.
  const tokens: [string, string][] = [
    ...[
      ['past-int64', '99999999999999999999'],
      ['fraction', '1.5'],
      ['exponent', '1e3'],
      ['string', '"7"'],
      ['negative-past-int64', '-9223372036854775809'],
    ].map(([label, rv]): [string, string] => [`continue-rv/${label}`, continueToken(rv)]),
    ...[
      ['negative', '{"v":"meta.k8s.io/v1","rv":-2,"start":"fixture\\u0000"}'],
      ['member-case', '{"V":"meta.k8s.io/v1","RV":-1,"Start":"fixture\\u0000"}'],
      ['version-number', '{"v":5,"rv":1,"start":"fixture\\u0000"}'],
      ['array', '[1]'],
      ['not-json', 'xx'],
      ['trailing-text', '{"v":"meta.k8s.io/v1","rv":1,"start":"a"}x'],
      ['raw-control-character', '{"v":"meta.k8s.io/v1","rv":1,"start":"a\u0000"}'],
    ].map(([label, json]): [string, string] => [`continue-token/${label}`, tokenOf(json)]),
  ];
  for (const [id, token] of tokens) {
    cases.push({
      id: `parity/${id}`,
      method: 'GET',
      path: `${configMaps}?limit=1&continue=${token}`,
      headers: {},
      collection: all,
    });
  }
  // Timestamps are read by Go's RFC 3339 layout (MicroTime: with six fraction digits).
  const timestamps: [string, string][] = [
    ['not-a-time', 'notatime'],
    ['empty', ''],
    ['date-only', '2024-01-01'],
    ['month-13', '2024-13-01T00:00:00Z'],
    ['february-30', '2024-02-30T00:00:00Z'],
    ['no-zone', '2024-01-01T00:00:00'],
    ['lowercase-t', '2024-01-01t00:00:00Z'],
    ['extra-text', '2024-01-01T00:00:00Zx'],
    ['offset', '2024-01-01T00:00:00+02:00'],
    ['fraction', '2024-01-01T00:00:00.123Z'],
    ['one-digit-hour', '2024-01-01T1:00:00Z'],
  ];
  timestamps.forEach(([label, value], n) => {
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `t${n}`, creationTimestamp: value },
    });
    cases.push({
      id: `parity/time/creationTimestamp/${label}`,
      method: 'POST',
      path: configMaps,
      headers: JSON_TYPE,
      body,
      collection: all,
    });
  });
  for (const [label, value] of [
    ['three-digits', '2024-01-01T00:00:00.123Z'],
    ['six-digits', '2024-01-01T00:00:00.123456Z'],
    ['none', '2024-01-01T00:00:00Z'],
  ]) {
    const body = JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: `micro-${label}` },
      spec: { renewTime: value },
    });
    cases.push({
      id: `parity/micro-time/renewTime/${label}`,
      method: 'POST',
      path: '/apis/coordination.k8s.io/v1/namespaces/corpus/leases',
      headers: JSON_TYPE,
      body,
      collection: '/apis/coordination.k8s.io/v1/leases',
    });
  }
  // A selector expression whose value is no label value, in each kind with a label selector (a
  // CronJob's job template may hold none at all).
  const badExpressions = [{ key: 'app', operator: 'In', values: ['corpus', '-bad-'] }];
  const badSelector = { matchLabels: { app: 'corpus' }, matchExpressions: badExpressions };
  const selectorEdits: [string, string, (object: JsonObject) => void][] = [
    ...['deployments', 'replicasets', 'statefulsets', 'daemonsets'].map(
      (resource): [string, string, (object: JsonObject) => void] => [
        'apps',
        resource,
        (object) => ((object.spec as JsonObject).selector = badSelector),
      ],
    ),
    ['policy', 'poddisruptionbudgets', (object) => ((object.spec as JsonObject).selector = badSelector)],
    ['networking.k8s.io', 'networkpolicies', (object) => ((object.spec as JsonObject).podSelector = badSelector)],
    [
      'batch',
      'jobs',
      (object) => {
        const spec = object.spec as JsonObject;
        Object.assign(spec, { manualSelector: true, selector: badSelector });
        (spec.template as JsonObject).metadata = { labels: { app: 'corpus' } };
      },
    ],
    [
      'batch',
      'cronjobs',
      (object) => ((((object.spec as JsonObject).jobTemplate as JsonObject).spec as JsonObject).selector = badSelector),
    ],
    [
      'rbac.authorization.k8s.io',
      'clusterroles',
      (object) => (object.aggregationRule = { clusterRoleSelectors: [{ matchExpressions: badExpressions }] }),
    ],
  ];
  for (const [group, resource, edit] of selectorEdits) {
    const type = servedTypes().find((t) => t.group === group && t.resource === resource)!;
    const object = validObject(type, `selector-${resource}`);
    edit(object);
    cases.push({
      id: `parity/selector-label-value/${resource}`,
      method: 'POST',
      path: collectionPath(type),
      headers: JSON_TYPE,
      body: JSON.stringify(object),
      collection: allObjectsPath(type),
    });
  }
  // A Job's selector: one the client gives is refused unless manualSelector says so, and the
  // labels the server generates must be its own; a CronJob's job template takes neither.
  const jobs = servedTypes().find((t) => t.group === 'batch' && t.resource === 'jobs')!;
  const cronJobs = servedTypes().find((t) => t.group === 'batch' && t.resource === 'cronjobs')!;
  const selected = { matchLabels: { app: 'corpus' } };
  const jobEdits: [string, JsonObject, JsonObject | undefined][] = [
    ['given-without-manual', { selector: selected }, { app: 'corpus' }],
    ['given-manual-false', { manualSelector: false, selector: selected }, { app: 'corpus' }],
    ['manual-labels-not-matching', { manualSelector: true, selector: selected }, { app: 'other' }],
    ['manual-matching', { manualSelector: true, selector: selected }, { app: 'corpus' }],
    ['template-label-of-other-uid', {}, { 'controller-uid': 'other' }],
    ['template-label-of-other-name', {}, { 'batch.kubernetes.io/job-name': 'other' }],
    ['empty-selector', { selector: {} }, undefined],
  ];
  for (const [name, edit, labels] of jobEdits) {
    const object = validObject(jobs, `job-selector-${name}`);
    const spec = object.spec as JsonObject;
    Object.assign(spec, edit);
    if (labels !== undefined) (spec.template as JsonObject).metadata = { labels };
    cases.push({
      id: `parity/job-selector/${name}`,
      method: 'POST',
      path: collectionPath(jobs),
      headers: JSON_TYPE,
      body: JSON.stringify(object),
      collection: allObjectsPath(jobs),
    });
  }
  const cronJobEdits: [string, JsonObject][] = [
    ['cronjob-manual-true', { manualSelector: true }],
    ['cronjob-manual-false', { manualSelector: false }],
    ['cronjob-manual-true-selector', { manualSelector: true, selector: selected }],
    ['cronjob-manual-false-selector', { manualSelector: false, selector: selected }],
  ];
  for (const [name, edit] of cronJobEdits) {
    const object = validObject(cronJobs, `job-selector-${name}`);
    Object.assign(((object.spec as JsonObject).jobTemplate as JsonObject).spec as JsonObject, edit);
    cases.push({
      id: `parity/job-selector/${name}`,
      method: 'POST',
      path: collectionPath(cronJobs),
      headers: JSON_TYPE,
      body: JSON.stringify(object),
      collection: allObjectsPath(cronJobs),
    });
  }
  // A Deployment's strategy, a DaemonSet's update strategy and a StatefulSet's policies, claim
  // templates and service name, one rule each.
  const deployments = servedTypes().find((t) => t.group === 'apps' && t.resource === 'deployments')!;
  const statefulSets = servedTypes().find((t) => t.group === 'apps' && t.resource === 'statefulsets')!;
  const claimTemplate = (name: string) => ({
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  const daemonSets = servedTypes().find((t) => t.group === 'apps' && t.resource === 'daemonsets')!;
  const daemonSetRollingUpdate = (rollingUpdate: JsonObject) => ({
    updateStrategy: { type: 'RollingUpdate', rollingUpdate },
  });
  const workloadEdits: [ResourceType, string, JsonObject][] = [
    [daemonSets, 'both-counts-zero', daemonSetRollingUpdate({ maxUnavailable: 0, maxSurge: 0 })],
    [daemonSets, 'both-counts-set', daemonSetRollingUpdate({ maxUnavailable: 1, maxSurge: 1 })],
    [daemonSets, 'surge-over-100', daemonSetRollingUpdate({ maxUnavailable: 0, maxSurge: '200%' })],
    [daemonSets, 'unknown-update-strategy', { updateStrategy: { type: 'Bad' } }],
    [
      deployments,
      'both-counts-zero',
      { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } },
    ],
    [
      deployments,
      'max-unavailable-over-100',
      { strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%' } } },
    ],
    [deployments, 'unknown-strategy', { strategy: { type: 'Bad' } }],
    [
      statefulSets,
      'on-delete-rolling-update',
      { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } },
    ],
    [
      statefulSets,
      'retention-policy',
      { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Bad', whenScaled: 'Retain' } },
    ],
    [statefulSets, 'ordinals-start', { ordinals: { start: -1 } }],
    [statefulSets, 'service-name', { serviceName: 'Not_A_Label' }],
    [statefulSets, 'claim-template-name', { volumeClaimTemplates: [claimTemplate('Not_A_Name')] }],
    [statefulSets, 'claim-template-ok', { volumeClaimTemplates: [claimTemplate('data')] }],
  ];
  for (const [type, name, edit] of workloadEdits) {
    const object = validObject(type, `workload-rules-${name}`);
    Object.assign(object.spec as JsonObject, edit);
    cases.push({
      id: `parity/workload-rules/${type.resource}/${name}`,
      method: 'POST',
      path: collectionPath(type),
      headers: JSON_TYPE,
      body: JSON.stringify(object),
      collection: allObjectsPath(type),
    });
  }
  // A claim's modes, size and class names.
  const claims = servedTypes().find((t) => t.group === '' && t.resource === 'persistentvolumeclaims')!;
  const claimEdits: [string, JsonObject][] = [
    ['read-write-once-pod-with-others', { accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] }],
    ['zero-size', { resources: { requests: { storage: '0' } } }],
    ['storage-class-no-name', { storageClassName: 'Not_A_Name' }],
    ['attributes-class-no-name', { volumeAttributesClassName: 'Not_A_Name' }],
  ];
  for (const [name, edit] of claimEdits) {
    const object = validObject(claims, `claim-rules-${name}`);
    Object.assign(object.spec as JsonObject, edit);
    cases.push({
      id: `parity/claim-rules/${name}`,
      method: 'POST',
      path: collectionPath(claims),
      headers: JSON_TYPE,
      body: JSON.stringify(object),
      collection: allObjectsPath(claims),
    });
  }
  // Every kind: a creationTimestamp that is no time cannot be handled as the kind.
  servedTypes().forEach((type, index) => {
    if (!type.verbs.includes('create')) return;
    const object = validObject(type, `k${index}-time`);
    (object.metadata as JsonObject).creationTimestamp = 'yesterday';
    cases.push({
      id: `parity/time/${type.group || 'core'}/${type.kind}`,
      method: 'POST',
      path: collectionPath(type),
      headers: JSON_TYPE,
      body: JSON.stringify(object),
      collection: allObjectsPath(type),
    });
  });
  // Apply's result is converted to the kind's type, and a time that is none fails there.
  for (const [label, name] of [
    ['existing', 'fixture'],
    ['absent', 'applied-time'],
  ]) {
    cases.push({
      id: `parity/apply/creationTimestamp/${label}`,
      method: 'PATCH',
      path: `${configMaps}/${name}?fieldManager=corpus`,
      headers: { 'content-type': 'application/apply-patch+yaml' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, creationTimestamp: 'notatime' } }),
      collection: all,
    });
  }
  // A whole-object write must name the object its URL names.
  const unnamed: [string, string, string, JsonObject][] = [
    ['configmap-no-metadata', `${configMaps}/fixture`, all, { apiVersion: 'v1', kind: 'ConfigMap' }],
    [
      'configmap-empty-name',
      `${configMaps}/fixture`,
      all,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '' } },
    ],
    [
      'configmap-generate-name',
      `${configMaps}/fixture`,
      all,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'fixture' } },
    ],
    [
      'pod-status',
      '/api/v1/namespaces/corpus/pods/fixture/status',
      '/api/v1/pods',
      { apiVersion: 'v1', kind: 'Pod', metadata: {} },
    ],
    [
      'deployment-scale',
      '/apis/apps/v1/namespaces/corpus/deployments/fixture/scale',
      '/apis/apps/v1/deployments',
      { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: {}, spec: { replicas: 2 } },
    ],
    [
      'namespace-finalize',
      '/api/v1/namespaces/corpus/finalize',
      '/api/v1/namespaces',
      { apiVersion: 'v1', kind: 'Namespace', metadata: {}, spec: {} },
    ],
  ];
  for (const [label, path, collection, body] of unnamed) {
    cases.push({
      id: `parity/put-without-name/${label}`,
      method: 'PUT',
      path,
      headers: JSON_TYPE,
      body: JSON.stringify(body),
      collection,
    });
  }
  // Below a subresource there is nothing to route to, but for the proxies.
  const below: [string, string][] = [
    ['/api/v1/namespaces/corpus/pods/fixture/status/extra', '/api/v1/pods'],
    ['/api/v1/namespaces/corpus/pods/fixture/log/extra', '/api/v1/pods'],
    ['/api/v1/namespaces/corpus/pods/fixture/ephemeralcontainers/extra/more', '/api/v1/pods'],
    ['/apis/apps/v1/namespaces/corpus/deployments/fixture/scale/extra', '/apis/apps/v1/deployments'],
    ['/api/v1/nodes/fixture/status/extra', '/api/v1/nodes'],
    ['/api/v1/namespaces/corpus/status/extra', '/api/v1/namespaces'],
  ];
  for (const [path, collection] of below) {
    for (const method of ['GET', 'PUT', 'PATCH']) {
      const headers: Record<string, string> =
        method === 'GET'
          ? {}
          : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' };
      cases.push({
        id: `parity/below-subresource/${method}${path}`,
        method,
        path,
        headers,
        body: method === 'GET' ? undefined : '{}',
        collection,
      });
    }
  }
  cases.push({
    id: 'parity/below-subresource/GET-trailing-slash',
    method: 'GET',
    path: '/api/v1/namespaces/corpus/pods/fixture/status/',
    headers: {},
    collection: '/api/v1/pods',
  });
  // CONNECT is routed like any method: an API path does not allow it, a host and port names nothing.
  const connects: [string, string][] = [
    ['authority', 'example.com:443'],
    ['collection', configMaps],
    ['object', `${configMaps}/fixture`],
    ['pod-exec', '/api/v1/namespaces/corpus/pods/fixture/exec'],
    ['path-outside-api', '/foo'],
    ['unknown-group', '/apis/nope.example.com/v1'],
    // The non-resource routes below answer CONNECT as any other method.
    ...['/api', '/apis', '/apis/apps', '/apis/apps/v1', '/version'].map((target): [string, string] => [
      `non-resource${target}`,
      target,
    ]),
  ];
  for (const [label, target] of connects) {
    cases.push({
      id: `parity/connect/${label}`,
      method: 'CONNECT',
      path: target,
      headers: {},
      rawHead: rawHead(`CONNECT ${target} HTTP/1.1`, ['Host: 127.0.0.1']),
      collection: all,
      // Go's mux answers a host and port, and a path outside the API, with its plain-text 404.
      ...(['authority', 'path-outside-api', 'unknown-group'].includes(label) ? { plainAnswer: true as const } : {}),
    });
  }
  // Outside the resources, the reference's go-restful routes (/api, a group version, /version)
  // refuse every method but GET; the routes of its mux (/apis, a group, /metrics, OpenAPI)
  // serve any method as GET.
  const nonResource: [string, string][] = [
    ['POST', '/version'],
    ['OPTIONS', '/version'],
    ['PUT', '/api/v1'],
    ['POST', '/api/v1/'],
    ['DELETE', '/apis/apps/v1'],
    ['POST', '/apis/apps/v2'],
    ['POST', '/apis'],
    ['DELETE', '/apis/'],
    ['POST', '/apis/apps'],
    ['POST', '/openapi/v2'],
    ['POST', '/openapi/v3'],
    ['PUT', '/metrics'],
  ];
  for (const [method, path] of nonResource) {
    cases.push({ id: `parity/non-resource/${method}${path}`, method, path, headers: {}, collection: all });
  }
  // A WebSocket watch without Origin fails the reference's handshake.
  const webSocket = [
    'Host: 127.0.0.1',
    'Upgrade: websocket',
    'Connection: Upgrade',
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'Sec-WebSocket-Version: 13',
  ];
  for (const [label, origin] of [
    ['origin-empty', ''],
    ['origin-null', 'null'],
    ['origin-not-a-uri', '::bad'],
  ]) {
    cases.push({
      id: `parity/websocket-watch/${label}`,
      method: 'GET',
      path: `${configMaps}?watch=true`,
      headers: {},
      rawHead: [`GET ${configMaps}?watch=true HTTP/1.1`, ...webSocket, `Origin: ${origin}`, '', ''].join('\r\n'),
      collection: all,
      plainAnswer: true,
    });
  }
  cases.push({
    id: 'parity/websocket-watch/no-origin',
    method: 'GET',
    path: `${configMaps}?watch=true`,
    headers: {},
    rawHead: [`GET ${configMaps}?watch=true HTTP/1.1`, ...webSocket, '', ''].join('\r\n'),
    collection: all,
    plainAnswer: true,
  });
  // What Go's HTTP server refuses before any handler and Node's parser lets through.
  const create = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'protocol' } });
  const chunked = `${create.length.toString(16)}\r\n${create}\r\n0\r\n\r\n`;
  const protocol: [string, string, string[], string?][] = [
    ['http-2.0', `GET ${configMaps} HTTP/2.0`, ['Host: 127.0.0.1']],
    ['http-3.0', `GET ${configMaps} HTTP/3.0`, ['Host: 127.0.0.1']],
    ['two-hosts', `GET ${configMaps} HTTP/1.1`, ['Host: 127.0.0.1', 'Host: other.example']],
    ['no-host', `GET ${configMaps} HTTP/1.1`, []],
    ['host-with-space', `GET ${configMaps} HTTP/1.1`, ['Host: 127.0.0.1, other']],
    ['host-with-slash', `GET ${configMaps} HTTP/1.1`, ['Host: a/b']],
    ['http-1.01', `GET ${configMaps} HTTP/1.01`, ['Host: 127.0.0.1']],
    ['http-10.1', `GET ${configMaps} HTTP/10.1`, ['Host: 127.0.0.1']],
    ['version-trailing-space', `GET ${configMaps} HTTP/1.1 `, ['Host: 127.0.0.1']],
    // Go ignores the coding of an HTTP/1.0 request: the body is empty.
    [
      'http-1.0-chunked',
      `POST ${configMaps} HTTP/1.0`,
      ['Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked'],
      chunked,
    ],
    [
      'content-length-twice-differing',
      `POST ${configMaps} HTTP/1.1`,
      ['Host: 127.0.0.1', 'Content-Length: 2', 'Content-Length: 3'],
      '{}',
    ],
    // A target that is no path: Go serves an absolute URL by its path, answers `OPTIONS *`
    // itself, and routes anything else to its mux's plain 404.
    ['target-absolute-url', `GET https://127.0.0.1${configMaps} HTTP/1.1`, ['Host: 127.0.0.1']],
    ['target-asterisk', 'GET * HTTP/1.1', ['Host: 127.0.0.1']],
    ['target-options-asterisk', 'OPTIONS * HTTP/1.1', ['Host: 127.0.0.1']],
    ['target-connect-asterisk', 'CONNECT * HTTP/1.1', ['Host: 127.0.0.1']],
    ['target-connect-word', 'CONNECT a HTTP/1.1', ['Host: 127.0.0.1']],
    // url.ParseRequestURI unescapes the path, not the query.
    ['path-bad-escape', `GET ${configMaps}/%zz HTTP/1.1`, ['Host: 127.0.0.1']],
    ['path-half-escape', `GET ${configMaps}/a%4 HTTP/1.1`, ['Host: 127.0.0.1']],
    ['query-bad-escape', `GET ${configMaps}?a=%zz HTTP/1.1`, ['Host: 127.0.0.1']],
    // An authority url.ParseRequestURI cannot read (parseAuthority, parseHost).
    ['target-absolute-unclosed-bracket', `GET http://[::1${configMaps} HTTP/1.1`, ['Host: 127.0.0.1']],
    ['target-absolute-port-letters', `GET http://127.0.0.1:abc${configMaps} HTTP/1.1`, ['Host: 127.0.0.1']],
    ['target-absolute-host-escape', `GET http://a%zz${configMaps} HTTP/1.1`, ['Host: 127.0.0.1']],
    ['target-absolute-userinfo', `GET http://u:p@127.0.0.1${configMaps} HTTP/1.1`, ['Host: 127.0.0.1']],
    ['target-connect-unclosed-bracket', 'CONNECT [::1 HTTP/1.1', ['Host: 127.0.0.1']],
    ['target-connect-escape', 'CONNECT a%zz:443 HTTP/1.1', ['Host: 127.0.0.1']],
    [
      'transfer-encoding-gzip-chunked',
      `POST ${configMaps} HTTP/1.1`,
      ['Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: gzip, chunked'],
      chunked,
    ],
    [
      'transfer-encoding-twice',
      `POST ${configMaps} HTTP/1.1`,
      ['Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Transfer-Encoding: chunked'],
      chunked,
    ],
    [
      'transfer-encoding-chunked-uppercase',
      `POST ${configMaps} HTTP/1.1`,
      ['Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: CHUNKED'],
      chunked,
    ],
  ];
  for (const [label, line, headers, body] of protocol) {
    const [method, path] = line.split(' ');
    cases.push({
      id: `parity/protocol/${label}`,
      method,
      path,
      headers: {},
      rawHead: rawHead(line, headers),
      body,
      collection: all,
      plainAnswer: true,
    });
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Validation rules

/**
 * The objects of the registry tests' recorded validation fixtures (each affinity rule class in
 * each kind with a pod template; admission configuration's label selectors and webhooks' review versions), sent as
 * creates, each under a name of its own since some are accepted. Kinds a default server does
 * not serve (MutatingAdmissionPolicy, a beta) stay in the registry tests.
 */
function recordedValidationCases(): CorpusCase[] {
  const fixtures = { affinity: affinityFixture.creates, admission: admissionFixture.creates };
  return Object.entries(fixtures).flatMap(([fixture, creates]) =>
    Object.entries(creates as Record<string, { object: JsonObject }>).flatMap(([label, { object }], index) => {
      const type = servedTypes().find((t) => apiVersionOf(t) === object.apiVersion && t.kind === object.kind);
      if (type === undefined) return [];
      const { metadata } = validObject(type, `${fixture}-${index}`);
      return [
        {
          id: `validation/${fixture}/${label}`,
          method: 'POST',
          path: collectionPath(type),
          headers: JSON_TYPE,
          body: JSON.stringify({
            ...object,
            metadata: { ...(object.metadata as JsonObject), ...(metadata as JsonObject) },
          }),
          collection: allObjectsPath(type),
        },
      ];
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Custom resources

const CUSTOM_GROUP = 'parity.corpus.example.com';
const CUSTOM_API_VERSION = `${CUSTOM_GROUP}/v1`;
const CUSTOM_COLLECTION = `/apis/${CUSTOM_API_VERSION}/namespaces/${NAMESPACE}/widgets`;
const CUSTOM_ALL = `/apis/${CUSTOM_API_VERSION}/widgets`;
const CRD_COLLECTION = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** The schema of the corpus's custom kind: one member per OpenAPI keyword the cases break. */
const WIDGET_SPEC_SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    count: { type: 'integer', format: 'int32', minimum: 0, exclusiveMinimum: true, multipleOf: 3 },
    ratio: { type: 'number', maximum: 10, exclusiveMaximum: true },
    size: { type: 'string', enum: ['small', 'big'] },
    code: { type: 'string', pattern: '^[a-z]+$', minLength: 2, maxLength: 4 },
    when: { type: 'string', format: 'date-time' },
    tags: { type: 'array', maxItems: 2, items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, port: { type: 'integer' } },
      },
    },
    labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string' } },
    owner: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
    note: { type: 'string', nullable: true },
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    replicas: { type: 'integer' },
    range: {
      type: 'object',
      properties: { low: { type: 'integer' }, high: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.low < self.high', message: 'low must be below high' }],
    },
  },
};

function widget(overrides: JsonObject): JsonObject {
  return {
    apiVersion: CUSTOM_API_VERSION,
    kind: 'Widget',
    metadata: { name: 'custom', namespace: NAMESPACE },
    spec: { size: 'small' },
    ...overrides,
  };
}

/** The CRD of the corpus's custom kind, and one of its objects (for the patches) once it is served. */
function customResourceFixtures(): CorpusRequest[] {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${CUSTOM_GROUP}` },
    spec: {
      group: CUSTOM_GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: WIDGET_SPEC_SCHEMA,
                status: { type: 'object', properties: { replicas: { type: 'integer' } } },
              },
            },
          },
          subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        },
      ],
    },
  };
  return [
    { method: 'POST', path: CRD_COLLECTION, headers: JSON_TYPE, body: JSON.stringify(crd) },
    {
      method: 'POST',
      path: CUSTOM_COLLECTION,
      headers: JSON_TYPE,
      body: JSON.stringify(widget({ metadata: { name: 'fixture' } })),
      awaitServed: CUSTOM_COLLECTION,
    },
  ];
}

/**
 * OpenAPI v3 group versions asked for in gnostic's protobuf form (kube-openapi's handler3): either
 * spelling of the type, first among clauses or outweighing JSON, for a built-in group version and
 * the custom kind's; the v2 type and another case refused; an Accept with no clause an empty 200;
 * a stale hash redirected whatever the form.
 */
function openAPIV3ProtobufCases(): CorpusCase[] {
  const protobuf = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
  const paths: [string, string, string?][] = [
    ['api-v1', '/openapi/v3/api/v1'],
    ['apps-v1', '/openapi/v3/apis/apps/v1'],
    ['custom', `/openapi/v3/apis/${CUSTOM_API_VERSION}`, CUSTOM_COLLECTION],
  ];
  const accepts: [string, string][] = [
    ['protobuf', 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf'],
    ['protobuf-deprecated-spelling', protobuf],
    ['protobuf-after-html', `text/html, ${protobuf}`],
    ['protobuf-over-weighted-json', `application/json;q=0.5, ${protobuf}`],
    ['v2-protobuf', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'],
    ['protobuf-upper-case', protobuf.toUpperCase()],
    ['no-clause', ','],
  ];
  const read = { collection: '/api/v1/configmaps', plainAnswer: true as const };
  return paths.flatMap(([label, path, awaitServed]) => [
    ...accepts.map(([acceptLabel, accept]) => ({
      id: `parity/openapi-v3-protobuf/${label}/${acceptLabel}`,
      method: 'GET',
      path,
      headers: { accept },
      ...(awaitServed ? { awaitServed } : {}),
      ...read,
    })),
    {
      id: `parity/openapi-v3-protobuf/${label}/protobuf-stale-hash`,
      method: 'GET',
      path: `${path}?hash=ABC`,
      headers: { accept: protobuf },
      ...(awaitServed ? { awaitServed } : {}),
      ...read,
    },
  ]);
}

/**
 * Custom resource bodies: decoded unstructured, they keep the apiVersion and kind they name (a
 * missing kind or another version is the decoder's 400, another kind the validation's 422) and
 * their metadata is typed alone; then each schema keyword broken.
 */
function customResourceCases(): CorpusCase[] {
  // Each under a name of its own, since some are accepted; a metadata the case sets stays.
  const named = (body: JsonObject, name: string): JsonObject =>
    (body.metadata as JsonObject | undefined)?.name === 'custom'
      ? { ...body, metadata: { ...(body.metadata as JsonObject), name } }
      : body;
  const without = (member: string): JsonObject => {
    const object = widget({});
    delete object[member];
    return object;
  };
  const creates: Record<string, { body: JsonObject; query?: string }> = {
    'type-meta/no-kind': { body: without('kind') },
    'type-meta/empty-kind': { body: widget({ kind: '' }) },
    'type-meta/no-apiVersion': { body: without('apiVersion') },
    'type-meta/other-version': { body: widget({ apiVersion: `${CUSTOM_GROUP}/v9` }) },
    'type-meta/other-group': { body: widget({ apiVersion: 'apps/v1' }) },
    'type-meta/other-kind': { body: widget({ kind: 'Gadget' }) },
    'metadata/string': { body: widget({ metadata: 'custom' }) },
    'metadata/label-number': { body: widget({ metadata: { name: 'custom', labels: { tier: 1 } } }) },
    'metadata/unknown-strict': {
      body: widget({ metadata: { name: 'custom', zz: 1 } }),
      query: '?fieldValidation=Strict',
    },
    'metadata/bad-name': { body: widget({ metadata: { name: 'Bad_Name' } }) },
    'metadata/bad-generateName': { body: widget({ metadata: { generateName: 'Bad_' } }) },
    'schema/type': { body: widget({ spec: { count: 'three' } }) },
    'schema/int32': { body: widget({ spec: { count: 3000000003 } }) },
    'schema/exclusive-minimum': { body: widget({ spec: { count: 0 } }) },
    'schema/multipleOf': { body: widget({ spec: { count: 4 } }) },
    'schema/exclusive-maximum': { body: widget({ spec: { ratio: 10 } }) },
    'schema/enum': { body: widget({ spec: { size: 'huge' } }) },
    'schema/pattern-and-lengths': { body: widget({ spec: { code: 'ABCDEF' } }) },
    'schema/date-time': { body: widget({ spec: { when: 'yesterday' } }) },
    'schema/set-duplicate': { body: widget({ spec: { tags: ['a', 'a', 'b'] } }) },
    'schema/map-duplicate': { body: widget({ spec: { ports: [{ name: 'a' }, { name: 'a', port: 1 }] } }) },
    'schema/max-properties': { body: widget({ spec: { labels: { a: 'x', b: 'y' } } }) },
    'schema/required': { body: widget({ spec: { owner: {} } }) },
    'schema/null': { body: widget({ spec: { size: null, note: null } }) },
    'schema/embedded-without-kind': { body: widget({ spec: { template: { apiVersion: 'v1' } } }) },
    'schema/rule': { body: widget({ spec: { range: { low: 2, high: 1 } } }) },
    'schema/unknown-strict': { body: widget({ spec: { zz: 1 } }), query: '?fieldValidation=Strict' },
  };
  const patches: Record<string, { type: string; patch: JsonValue }> = {
    'patch/merge-kind': { type: 'application/merge-patch+json', patch: { kind: 'Gadget' } },
    'patch/merge-apiVersion': { type: 'application/merge-patch+json', patch: { apiVersion: `${CUSTOM_GROUP}/v9` } },
    'patch/json-group': {
      type: 'application/json-patch+json',
      patch: [{ op: 'replace', path: '/apiVersion', value: 'apps/v1' }],
    },
    'patch/merge-enum': { type: 'application/merge-patch+json', patch: { spec: { size: 'huge' } } },
    'scale/merge-replicas-string': { type: 'application/merge-patch+json', patch: { spec: { replicas: 'two' } } },
    'scale/json-replicas-string': {
      type: 'application/json-patch+json',
      patch: [{ op: 'replace', path: '/spec/replicas', value: 'two' }],
    },
  };
  return [
    ...Object.entries(creates).map(([label, { body, query }]) => ({
      id: `parity/custom/create/${label}`,
      method: 'POST',
      path: `${CUSTOM_COLLECTION}${query ?? ''}`,
      headers: JSON_TYPE,
      body: JSON.stringify(named(body, label.replace('/', '-').toLowerCase())),
      collection: CUSTOM_ALL,
    })),
    ...Object.entries(patches).map(([label, { type, patch }]) => ({
      id: `parity/custom/${label}`,
      method: 'PATCH',
      path: `${CUSTOM_COLLECTION}/fixture${label.startsWith('scale/') ? '/scale' : ''}`,
      headers: { 'content-type': type },
      body: JSON.stringify(patch),
      collection: CUSTOM_ALL,
    })),
  ];
}

/** A CRD of the corpus's custom kind under `group`, with more `metadata`. */
function corpusCRD(group: string, metadata: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gears.${group}`, ...metadata },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'gears', singular: 'gear', kind: 'Gear', listKind: 'GearList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: WIDGET_SPEC_SCHEMA } } },
        },
      ],
    },
  };
}

/** The corpus CRD with `change` made to its (copied) only version. */
function withVersionChange(change: (version: JsonObject, specSchema: JsonObject) => void): JsonObject {
  const crd = structuredClone(corpusCRD(CUSTOM_GROUP));
  const version = ((crd.spec as JsonObject).versions as JsonObject[])[0];
  const root = (version.schema as JsonObject).openAPIV3Schema as JsonObject;
  change(version, (root.properties as JsonObject).spec as JsonObject);
  return crd;
}

function withSpecRule(rule: JsonObject): JsonObject {
  return withVersionChange((_version, specSchema) => {
    specSchema['x-kubernetes-validations'] = [rule];
  });
}

function withSelectableField(jsonPath: string): JsonObject {
  return withVersionChange((version) => {
    version.selectableFields = [{ jsonPath }];
  });
}

/** CRDs the reference refuses for rules beyond their schema's structure, sent as dry runs. */
function customResourceDefinitionCases(): CorpusCase[] {
  const approval = (value: string) => ({ annotations: { 'api-approved.kubernetes.io': value } });
  const crds: Record<string, JsonObject> = {
    'approval/missing': corpusCRD('widgets.k8s.io'),
    'approval/not-a-url': corpusCRD('x.kubernetes.io', approval('yes please')),
    'approval/url-without-host': corpusCRD('a.k8s.io', approval('https:///pull/1')),
    'approval/unapproved': corpusCRD('sig.k8s.io', approval('unapproved, experimental')),
    'rule-field-path/undeclared': withSpecRule({ rule: 'true', fieldPath: '.zz' }),
    'rule-field-path/empty-step': withSpecRule({ rule: 'true', fieldPath: '.size..x' }),
    'rule-field-path/no-dot': withSpecRule({ rule: 'true', fieldPath: 'size' }),
    'rule-field-path/list-index': withSpecRule({ rule: 'true', fieldPath: '.tags[0]' }),
    'rule-field-path/bracket': withSpecRule({ rule: 'true', fieldPath: "['size']" }),
    'selectable-field/no-dot': withSelectableField('spec.size'),
    'selectable-field/bracket': withSelectableField(".spec['size']"),
    'message-expression/unbounded-cost': withSpecRule({
      rule: 'true',
      messageExpression: "'count is ' + string(self.count)",
    }),
    'default/refused-by-rule': withVersionChange((_version, specSchema) => {
      const range = (specSchema.properties as JsonObject).range as JsonObject;
      range.default = { low: 3, high: 1 };
    }),
    'default/refused-by-message-expression': withVersionChange((_version, specSchema) => {
      (specSchema.properties as JsonObject).code = {
        type: 'string',
        default: 'zz',
        'x-kubernetes-validations': [{ rule: "self != 'zz'", messageExpression: "'code ' + self + ' is taken'" }],
      };
    }),
  };
  return Object.entries(crds).map(([label, crd]) => ({
    id: `parity/custom/crd/${label}`,
    method: 'POST',
    path: `${CRD_COLLECTION}?dryRun=All`,
    headers: JSON_TYPE,
    body: JSON.stringify(crd),
    collection: CRD_COLLECTION,
  }));
}

// ---------------------------------------------------------------------------------------------
// Patch forms: how the reference's PATCH handler reads the request, class by class

const PATCH_FORMS = 'parity/patch-forms';

/**
 * The PATCH `Content-Type`: the reference takes it up to the first `;` exactly as sent, so an
 * upper-case type, a space before the parameters or a list of types is no patch type (415),
 * while parameters after it are ignored.
 */
function patchContentTypeCases(): CorpusCase[] {
  const contentTypes: [string, string][] = [
    ['upper-case', 'APPLICATION/MERGE-PATCH+JSON'],
    ['upper-case-subtype', 'application/Merge-Patch+json'],
    ['space-before-parameters', 'application/merge-patch+json ; charset=utf-8'],
    ['two-types', 'application/merge-patch+json, application/json-patch+json'],
    ['charset-upper-case', 'application/merge-patch+json; charset=UTF-8'],
    ['parameter-without-name', 'application/merge-patch+json; =x'],
    ['strategic-charset', 'application/strategic-merge-patch+json; charset=utf-8'],
    ['apply-upper-case', 'Application/Apply-Patch+YAML'],
  ];
  return contentTypes.map(([label, contentType]) => ({
    id: `${PATCH_FORMS}/content-type/${label}`,
    method: 'PATCH',
    path: `${PATCH_FORMS_CONFIGMAP}?fieldManager=corpus`,
    headers: { 'content-type': contentType },
    body: label.startsWith('apply')
      ? 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixture\n'
      : '{"data":{"form":"x"}}',
    collection: '/api/v1/configmaps',
  }));
}

/**
 * JSON Patch as the reference's library (json-patch v4) applies it, and the handler's checks
 * before it: a pointer's first segment unread, Go integer indices (signs, leading zeros,
 * negative from the end), null members absent, a whole-document replace by a scalar ignored,
 * copies bounded; `op`, `path` and `from` decoded as strings unless fields go unvalidated; at
 * most 10000 operations. Each patch first sets the finalizers it indexes into.
 */
function jsonPatchFormCases(): CorpusCase[] {
  const finalizers = { op: 'add', path: '/metadata/finalizers', value: ['x.io/a', 'x.io/b'] };
  const big = 'x'.repeat(1024 * 1024);
  const patches: [string, string, readonly unknown[]][] = [
    ['no-leading-slash', '', [{ op: 'add', path: 'data/k', value: 'v' }]],
    ['index-negative', '', [finalizers, { op: 'replace', path: '/metadata/finalizers/-1', value: 'x.io/c' }]],
    [
      'index-negative-before-start',
      '',
      [finalizers, { op: 'replace', path: '/metadata/finalizers/-3', value: 'x.io/c' }],
    ],
    ['index-leading-zero', '', [finalizers, { op: 'replace', path: '/metadata/finalizers/01', value: 'x.io/c' }]],
    ['index-plus-sign', '', [finalizers, { op: 'remove', path: '/metadata/finalizers/+1' }]],
    [
      'index-past-int64',
      '',
      [finalizers, { op: 'replace', path: '/metadata/finalizers/99999999999999999999', value: 'x.io/c' }],
    ],
    ['add-index-negative', '', [finalizers, { op: 'add', path: '/metadata/finalizers/-1', value: 'x.io/c' }]],
    ['add-index-past-end', '', [finalizers, { op: 'add', path: '/metadata/finalizers/3', value: 'x.io/c' }]],
    ['remove-dash', '', [finalizers, { op: 'remove', path: '/metadata/finalizers/-' }]],
    ['replace-absent-member', '', [{ op: 'replace', path: '/data/replaced', value: 'x' }]],
    ['copy-from-absent-member', '', [{ op: 'copy', from: '/data/never', path: '/metadata/labels' }]],
    ['test-null-for-absent-member', '', [{ op: 'test', path: '/data/never', value: null }]],
    ['test-value-for-absent-member', '', [{ op: 'test', path: '/data/never', value: 'x' }]],
    ['replace-document-by-string', '', [{ op: 'replace', path: '', value: 'x' }]],
    ['replace-document-by-null', '', [{ op: 'replace', path: '', value: null }]],
    ['replace-document-by-empty-object', '', [{ op: 'replace', path: '', value: {} }]],
    ['move-into-own-child', '', [{ op: 'move', from: '/metadata', path: '/metadata/x' }]],
    ['op-number', '', [{ op: 5, path: '/data/k', value: 'v' }]],
    ['op-number-unvalidated', '?fieldValidation=Ignore', [{ op: 5, path: '/data/k', value: 'v' }]],
    ['path-number', '?fieldValidation=Strict', [{ op: 'add', path: 5, value: 'v' }]],
    ['path-number-unvalidated', '?fieldValidation=Ignore', [{ op: 'add', path: 5, value: 'v' }]],
    ['from-bool', '', [{ op: 'copy', from: true, path: '/data/k' }]],
    ['operation-string', '', ['x']],
    [
      'copies-past-limit',
      '',
      [
        { op: 'add', path: '/data/big', value: big },
        ...['c1', 'c2', 'c3'].map((key) => ({ op: 'copy', from: '/data/big', path: `/data/${key}` })),
      ],
    ],
    ['operations-10000', '', Array.from({ length: 10000 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }))],
    ['operations-10001', '', Array.from({ length: 10001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }))],
  ];
  const cases: CorpusCase[] = patches.map(([label, query, operations]) => ({
    id: `${PATCH_FORMS}/json-patch/${label}`,
    method: 'PATCH',
    path: `${PATCH_FORMS_CONFIGMAP}${query}`,
    headers: { 'content-type': 'application/json-patch+json' },
    body: JSON.stringify(operations),
    collection: '/api/v1/configmaps',
  }));
  const bodies: [string, string][] = [
    ['body-object', '{"op":"add","path":"/data/k","value":"v"}'],
    ['body-object-unvalidated', '{"op":"add","path":"/data/k","value":"v"}'],
  ];
  for (const [label, body] of bodies)
    cases.push({
      id: `${PATCH_FORMS}/json-patch/${label}`,
      method: 'PATCH',
      path: `${PATCH_FORMS_CONFIGMAP}${label.endsWith('unvalidated') ? '?fieldValidation=Ignore' : ''}`,
      headers: { 'content-type': 'application/json-patch+json' },
      body,
      collection: '/api/v1/configmaps',
    });
  return cases;
}

/**
 * Strategic merge as the reference does it: the result is converted into the kind's Go type,
 * where nothing reads its kind and apiVersion (another one in the patch is no error), and a
 * map the object lacks that carries a `$patch` directive, whichever, is not taken at all (the
 * last case shows the labels were not set).
 */
function strategicPatchFormCases(): CorpusCase[] {
  const patches: [string, string, unknown][] = [
    ['kind-other', 'application/strategic-merge-patch+json', { kind: 'Secret' }],
    ['api-version-other', 'application/strategic-merge-patch+json', { apiVersion: 'v2' }],
    ['kind-deleted', 'application/strategic-merge-patch+json', { kind: null }],
    ['kind-number', 'application/strategic-merge-patch+json', { kind: 5 }],
    [
      'absent-labels-directive-unknown',
      'application/strategic-merge-patch+json',
      { metadata: { labels: { $patch: 'bogus', a: 'b' } } },
    ],
    [
      'absent-labels-directive-replace',
      'application/strategic-merge-patch+json',
      { metadata: { labels: { $patch: 'replace', a: 'b' } } },
    ],
    ['labels-still-absent', 'application/json-patch+json', [{ op: 'test', path: '/metadata/labels', value: null }]],
  ];
  return patches.map(([label, contentType, patch]) => ({
    id: `${PATCH_FORMS}/strategic/${label}`,
    method: 'PATCH',
    path: PATCH_FORMS_CONFIGMAP,
    headers: { 'content-type': contentType },
    body: JSON.stringify(patch),
    collection: '/api/v1/configmaps',
  }));
}

/**
 * A JSON or merge patch that removes apiVersion: the reference decodes the result into the
 * internal Go type, which does not read `metadata`, so the name check after it fails (400). One
 * that removes only kind keeps the URL's kind.
 */
function typeMetaPatchFormCases(): CorpusCase[] {
  const patches: [string, string, unknown][] = [
    ['json-patch-remove-api-version', 'application/json-patch+json', [{ op: 'remove', path: '/apiVersion' }]],
    ['json-patch-remove-kind', 'application/json-patch+json', [{ op: 'remove', path: '/kind' }]],
    ['merge-api-version-null', 'application/merge-patch+json', { apiVersion: null }],
    ['merge-api-version-empty', 'application/merge-patch+json', { apiVersion: '' }],
    ['merge-type-meta-null', 'application/merge-patch+json', { apiVersion: null, kind: null }],
  ];
  return patches.map(([label, contentType, patch]) => ({
    id: `${PATCH_FORMS}/type-meta/${label}`,
    method: 'PATCH',
    path: PATCH_FORMS_CONFIGMAP,
    headers: { 'content-type': contentType },
    body: JSON.stringify(patch),
    collection: '/api/v1/configmaps',
  }));
}

/**
 * A `[]byte` member (a ConfigMap's binaryData) must be base64 Go's decoder accepts, whether a
 * create sends it or a patch produces it.
 */
function base64PatchFormCases(): CorpusCase[] {
  const values: [string, string][] = [
    ['not-base64', '!!'],
    ['unpadded', 'YQ'],
    ['after-padding', 'YQ==x'],
    ['padded', 'YQ=='],
    ['line-breaks', 'Y\nQ=\r\n='],
  ];
  return values.flatMap(([label, value]) => [
    {
      id: `${PATCH_FORMS}/base64/create-${label}`,
      method: 'POST',
      path: `/api/v1/namespaces/${NAMESPACE}/configmaps?dryRun=All`,
      headers: JSON_TYPE,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'base64' },
        binaryData: { a: value },
      }),
      collection: '/api/v1/configmaps',
    },
    ...(['merge', 'strategic-merge'] as const).map((patchType) => ({
      id: `${PATCH_FORMS}/base64/${patchType}-${label}`,
      method: 'PATCH',
      path: `${PATCH_FORMS_CONFIGMAP}?dryRun=All`,
      headers: { 'content-type': `application/${patchType}-patch+json` },
      // Not `a`, which the object's data has: a key may not be in both.
      body: JSON.stringify({ binaryData: { b: value } }),
      collection: '/api/v1/configmaps',
    })),
  ]);
}

/** `$retainKeys` that leaves out a key the patch sets is a bad format (400), on a Deployment of the cases' own. */
function retainKeysPatchFormCases(): CorpusCase[] {
  const deployments = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;
  const deployment = servedTypes().find((t) => t.group === 'apps' && t.resource === 'deployments')!;
  const patches: [string, unknown][] = [
    ['key-outside', { spec: { strategy: { $retainKeys: ['rollingUpdate'], type: 'Recreate' } } }],
    ['key-inside', { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }],
  ];
  return [
    {
      id: `${PATCH_FORMS}/retain-keys/create-target`,
      method: 'POST',
      path: deployments,
      headers: JSON_TYPE,
      body: JSON.stringify(validObject(deployment, 'patch-forms')),
      collection: '/apis/apps/v1/deployments',
    },
    ...patches.map(([label, patch]) => ({
      id: `${PATCH_FORMS}/retain-keys/${label}`,
      method: 'PATCH',
      path: `${deployments}/patch-forms`,
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify(patch),
      collection: '/apis/apps/v1/deployments',
    })),
  ];
}

/** The object the patch-form cases patch: created by their first case, since earlier cases delete the fixtures. */
const PATCH_FORMS_CONFIGMAP = `/api/v1/namespaces/${NAMESPACE}/configmaps/patch-forms`;

function patchFormCases(): CorpusCase[] {
  const target: CorpusCase = {
    id: `${PATCH_FORMS}/create-target`,
    method: 'POST',
    path: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
    headers: JSON_TYPE,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patch-forms' }, data: { a: '1' } }),
    collection: '/api/v1/configmaps',
  };
  return [
    target,
    ...patchContentTypeCases(),
    ...jsonPatchFormCases(),
    ...strategicPatchFormCases(),
    ...typeMetaPatchFormCases(),
    ...base64PatchFormCases(),
    ...retainKeysPatchFormCases(),
  ];
}

// ---------------------------------------------------------------------------------------------
// Patch tail: the PATCH differences left after the patch forms

const PATCH_TAIL = 'parity/patch-tail';
const PATCH_TAIL_DEPLOYMENTS = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;

/**
 * `$setElementOrder` as the reference's strategic merge library checks it: the directive's key
 * (its prefix with or without the `/`), the field it names (a list field of a struct, found as
 * Go finds it, case aside), and the order's items against the list's merge key. The reference
 * answers most of these with the library's error as a 500, or drops the connection where the
 * library panics comparing maps; capstan answered 200 to all but the last.
 */
function setElementOrderCases(): CorpusCase[] {
  const deployment = servedTypes().find((t) => t.group === 'apps' && t.resource === 'deployments')!;
  const podSpec = (spec: JsonObject): JsonObject => ({ spec: { template: { spec } } });
  const patches: [string, JsonObject][] = [
    ['field-unknown', podSpec({ '$setElementOrder/nope': [{ name: 'a' }] })],
    ['field-unknown-at-top', { '$setElementOrder/finalizers': ['x.io/a'] }],
    ['field-path-of-two', { metadata: { '$setElementOrder/finalizers/x': ['x.io/a'] } }],
    ['field-not-a-list', podSpec({ '$setElementOrder/hostname': [] })],
    ['parent-a-map', { spec: { template: { metadata: { labels: { '$setElementOrder/x': [] } } } } }],
    ['prefix-without-slash', { metadata: { $setElementOrderX: ['x.io/a'] } }],
    ['delete-prefix-without-slash', { metadata: { $deleteFromPrimitiveListX: ['x.io/a'] } }],
    ['order-item-without-merge-key', podSpec({ '$setElementOrder/containers': [{}] })],
    ['order-item-scalar-for-maps', podSpec({ '$setElementOrder/containers': ['c'] })],
    [
      'order-maps-without-merge-key',
      podSpec({ '$setElementOrder/tolerations': [{ key: 'k' }], tolerations: [{ key: 'k' }] }),
    ],
    ['new-list-empty', { metadata: { '$setElementOrder/ownerReferences': [], ownerReferences: [] } }],
    ['field-other-case', { metadata: { '$setElementOrder/Finalizers': [] } }],
  ];
  return [
    {
      id: `${PATCH_TAIL}/create-target`,
      method: 'POST',
      path: PATCH_TAIL_DEPLOYMENTS,
      headers: JSON_TYPE,
      body: JSON.stringify(validObject(deployment, 'patch-tail')),
      collection: '/apis/apps/v1/deployments',
    },
    ...patches.map(([label, patch]) => ({
      id: `${PATCH_TAIL}/strategic/set-element-order/${label}`,
      method: 'PATCH',
      path: `${PATCH_TAIL_DEPLOYMENTS}/patch-tail?dryRun=All`,
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify(patch),
      collection: '/apis/apps/v1/deployments',
    })),
  ];
}

/**
 * A patch of an object that does not exist: the reference reads the patch document only once
 * it holds the object, so JSON, merge and strategic patches are a 404 whatever their body (bad
 * JSON, the wrong shape, too many operations, a bad directive), while an apply reads its body
 * to create the object. capstan read the body first and answered 400 or 413.
 */
function missingObjectPatchCases(): CorpusCase[] {
  const missing = `/api/v1/namespaces/${NAMESPACE}/configmaps/patch-tail-missing`;
  const tooMany = JSON.stringify(Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a', value: 1 })));
  const bodies: [string, string, string][] = [
    ['json/bad-json', 'application/json-patch+json', '['],
    ['json/not-a-list', 'application/json-patch+json', '{}'],
    ['json/too-many-operations', 'application/json-patch+json', tooMany],
    ['json/op-not-a-string', 'application/json-patch+json', '[{"op":1,"path":"/a"}]'],
    ['json/operation-not-an-object', 'application/json-patch+json', '["x"]'],
    ['json/too-deep', 'application/json-patch+json', `[${deep(1100)}]`],
    ['merge/bad-json', 'application/merge-patch+json', '{'],
    ['merge/not-an-object', 'application/merge-patch+json', '[1]'],
    ['strategic/bad-json', 'application/strategic-merge-patch+json', '{'],
    ['strategic/not-an-object', 'application/strategic-merge-patch+json', '[1]'],
    ['strategic/replace-whole-object', 'application/strategic-merge-patch+json', '{"$patch":"replace"}'],
    ['apply/bad-yaml', 'application/apply-patch+yaml', '{'],
  ];
  const queries = ['', '?fieldValidation=Ignore'];
  // A Scale's patch is read once its parent is: a 404 for a parent that does not exist.
  const scaleBodies = bodies.filter(([label]) => label.endsWith('/bad-json') && !label.startsWith('apply'));
  return [
    ...queries.flatMap((query) =>
      bodies.map(([label, contentType, body]) => ({
        id: `${PATCH_TAIL}/missing/${label}${query}`,
        method: 'PATCH',
        path: `${missing}${query}${contentType.includes('apply') ? `${query ? '&' : '?'}fieldManager=corpus` : ''}`,
        headers: { 'content-type': contentType },
        body,
        collection: '/api/v1/configmaps',
      })),
    ),
    ...scaleBodies.map(([label, contentType, body]) => ({
      id: `${PATCH_TAIL}/missing/scale/${label}`,
      method: 'PATCH',
      path: `${PATCH_TAIL_DEPLOYMENTS}/patch-tail-missing/scale`,
      headers: { 'content-type': contentType },
      body,
      collection: '/apis/apps/v1/deployments',
    })),
  ];
}

/**
 * Strict decoding of the patch document itself (fieldValidation=Strict): a JSON Patch
 * operation's members other than op, path, from and value and its repeated members, and a
 * merge or strategic patch's repeated keys, are a 422 before the result is looked at. capstan
 * decoded only the result, and took these (200).
 */
function strictPatchDocumentCases(): CorpusCase[] {
  const configMaps = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  const patches: [string, string, string][] = [
    [
      'json/operation-unknown-member',
      'application/json-patch+json',
      '[{"op":"add","path":"/data/k","value":"v","x":1}]',
    ],
    [
      'json/operation-member-other-case',
      'application/json-patch+json',
      '[{"op":"add","Op":"add","path":"/data/k","value":"v"}]',
    ],
    [
      'json/operation-repeated-member',
      'application/json-patch+json',
      '[{"op":"add","op":"add","path":"/data/k","value":"v"}]',
    ],
    ['merge/repeated-key', 'application/merge-patch+json', '{"data":{"k":"1","k":"2"}}'],
    ['strategic/repeated-key', 'application/strategic-merge-patch+json', '{"data":{"k":"1","k":"2"}}'],
  ];
  return [
    {
      id: `${PATCH_TAIL}/strict/create-target`,
      method: 'POST',
      path: configMaps,
      headers: JSON_TYPE,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patch-tail' }, data: { a: '1' } }),
      collection: '/api/v1/configmaps',
    },
    ...patches.map(([label, contentType, body]) => ({
      id: `${PATCH_TAIL}/strict/${label}`,
      method: 'PATCH',
      path: `${configMaps}/patch-tail?fieldValidation=Strict`,
      headers: { 'content-type': contentType },
      body,
      collection: '/api/v1/configmaps',
    })),
  ];
}

/**
 * Directive keys in a value the object lacks stay in it, as the reference's library leaves
 * them: an annotation key (invalid, 422) or, under Strict, an unknown field (422). capstan
 * dropped them and took the patch.
 */
function directiveKeyCases(): CorpusCase[] {
  const patches: [string, string, JsonObject][] = [
    ['new-map-keeps-order-key', '', { metadata: { annotations: { '$setElementOrder/x': 'y' } } }],
    [
      'new-struct-keeps-retain-keys',
      '&fieldValidation=Strict',
      { spec: { template: { spec: { dnsConfig: { $retainKeys: ['options'], options: [{ name: 'a' }] } } } } },
    ],
  ];
  return patches.map(([label, query, patch]) => ({
    id: `${PATCH_TAIL}/strategic/directive-keys/${label}`,
    method: 'PATCH',
    path: `${PATCH_TAIL_DEPLOYMENTS}/patch-tail?dryRun=All${query}`,
    headers: { 'content-type': 'application/strategic-merge-patch+json' },
    body: JSON.stringify(patch),
    collection: '/apis/apps/v1/deployments',
  }));
}

/**
 * A pod spec's nodeSelector is labels to the reference (ValidateLabels): a key that is no
 * qualified name or a value that is no label value is a 422, in a Pod and in a template.
 * capstan did not look at it; the patch probe found it through a strategic patch.
 */
function nodeSelectorCases(): CorpusCase[] {
  const podType = servedTypes().find((t) => t.group === '' && t.resource === 'pods')!;
  const deployment = servedTypes().find((t) => t.group === 'apps' && t.resource === 'deployments')!;
  const selectors: [string, JsonObject][] = [
    ['key-with-space', { 'a b': 'x' }],
    ['key-directive', { $foo: 'x' }],
    ['value-with-space', { a: 'x y' }],
  ];
  return selectors.flatMap(([label, nodeSelector]) => {
    const pod = validObject(podType, `patch-tail-${label}`);
    (pod.spec as JsonObject).nodeSelector = nodeSelector;
    const owner = validObject(deployment, `patch-tail-${label}`);
    ((owner.spec as JsonObject).template as JsonObject).spec = {
      ...(((owner.spec as JsonObject).template as JsonObject).spec as JsonObject),
      nodeSelector,
    };
    return [
      {
        id: `${PATCH_TAIL}/node-selector/pod/${label}`,
        method: 'POST',
        path: `/api/v1/namespaces/${NAMESPACE}/pods`,
        headers: JSON_TYPE,
        body: JSON.stringify(pod),
        collection: '/api/v1/pods',
      },
      {
        id: `${PATCH_TAIL}/node-selector/deployment/${label}`,
        method: 'POST',
        path: PATCH_TAIL_DEPLOYMENTS,
        headers: JSON_TYPE,
        body: JSON.stringify(owner),
        collection: '/apis/apps/v1/deployments',
      },
    ];
  });
}

function patchTailCases(): CorpusCase[] {
  return [
    ...setElementOrderCases(),
    ...directiveKeyCases(),
    ...missingObjectPatchCases(),
    ...strictPatchDocumentCases(),
    ...nodeSelectorCases(),
  ];
}

// ---------------------------------------------------------------------------------------------
// Subresources

const SUBRESOURCE_PREFIX = 'parity/subresource';

/** A case of the subresource block: a JSON body unless a content type is given. */
function subresourceCase(
  id: string,
  request: { method: string; path: string; collection: string; body?: JsonValue | string; contentType?: string },
): CorpusCase {
  const body =
    request.body === undefined || typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  return {
    id: `${SUBRESOURCE_PREFIX}/${id}`,
    method: request.method,
    path: request.path,
    headers: body === undefined ? {} : { 'content-type': request.contentType ?? 'application/json' },
    body,
    collection: request.collection,
  };
}

/**
 * The scale subresource of each built-in kind that has one: the body is an autoscaling/v1 Scale
 * whatever the parent, typed and checked against the URL as a PUT or a patch's result is, and a
 * Scale's uid is the update's precondition. Each parent is created first, with one replica.
 */
function scaleCases(): CorpusCase[] {
  const cases: CorpusCase[] = [];
  const parents = (['Deployment', 'ReplicaSet', 'StatefulSet', 'ReplicationController'] as const).map((kind) => {
    const type = servedTypes().find((t) => t.kind === kind && (t.group === 'apps' || t.group === ''))!;
    return {
      resource: type.resource,
      path: collectionPath(type),
      collection: allObjectsPath(type),
      name: 'subresource-scale',
      create: validObject(type, 'subresource-scale'),
    };
  });
  for (const parent of parents) {
    const at = (id: string) => `scale/${parent.resource}/${id}`;
    const path = `${parent.path}/${parent.name}/scale`;
    const { collection } = parent;
    cases.push(
      subresourceCase(at('create-parent'), { method: 'POST', path: parent.path, collection, body: parent.create }),
    );
    const scale = (spec: JsonValue, metadata: JsonObject = {}, rest: JsonObject = {}): JsonObject => ({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: parent.name, namespace: NAMESPACE, ...metadata },
      spec,
      ...rest,
    });
    const puts: [string, JsonValue | string][] = [
      ['kind-deployment', { ...scale({ replicas: 2 }), kind: 'Deployment' }],
      ['kind-deployment-apps-v1', { ...scale({ replicas: 2 }), kind: 'Deployment', apiVersion: 'apps/v1' }],
      ['apiversion-apps-v1', { ...scale({ replicas: 2 }), apiVersion: 'apps/v1' }],
      ['apiversion-autoscaling-v2', { ...scale({ replicas: 2 }), apiVersion: 'autoscaling/v2' }],
      ['apiversion-extensions-v1beta1', { ...scale({ replicas: 2 }), apiVersion: 'extensions/v1beta1' }],
      ['apiversion-apps-v1beta2', { ...scale({ replicas: 2 }), apiVersion: 'apps/v1beta2' }],
      ['apiversion-core-v1', { ...scale({ replicas: 2 }), apiVersion: 'v1' }],
      ['replicas-past-int32', scale({ replicas: 2147483648 })],
      ['replicas-1e10', scale({ replicas: 1e10 })],
      ['replicas-float', scale({ replicas: 1.5 })],
      ['spec-string', scale('x')],
      ['status-string', scale({ replicas: 2 }, {}, { status: 'x' })],
      ['name-other', scale({ replicas: 2 }, { name: 'other' })],
      ['namespace-other', scale({ replicas: 2 }, { namespace: 'other' })],
      ['uid-other', scale({ replicas: 2 }, { uid: 'other' })],
      ['null', 'null'],
    ];
    for (const [label, body] of puts)
      cases.push(subresourceCase(at(`put/${label}`), { method: 'PUT', path, collection, body }));
    cases.push(
      subresourceCase(at('put/strict-unknown-field'), {
        method: 'PUT',
        path: `${path}?fieldValidation=Strict`,
        collection,
        body: scale({ replicas: 2, bogus: 1 }),
      }),
      subresourceCase(at('put/kind-missing'), {
        method: 'PUT',
        path: `${path}?dryRun=All`,
        collection,
        body: { metadata: { name: parent.name }, spec: { replicas: 3 } },
      }),
    );
    const merges: [string, JsonObject][] = [
      ['name-other', { metadata: { name: 'other' } }],
      ['namespace-other', { metadata: { namespace: 'other' } }],
      ['kind-other', { kind: 'Foo' }],
      ['apiversion-other', { apiVersion: 'v1' }],
      ['replicas-past-int32', { spec: { replicas: 4294967296 } }],
      ['replicas-string', { spec: { replicas: 'x' } }],
    ];
    for (const [label, body] of merges)
      cases.push(
        subresourceCase(at(`merge/${label}`), {
          method: 'PATCH',
          path,
          collection,
          body,
          contentType: 'application/merge-patch+json',
        }),
      );
    const jsonPatches: [string, JsonValue][] = [
      ['replace-kind', [{ op: 'replace', path: '/kind', value: 'Foo' }]],
      ['replace-name', [{ op: 'replace', path: '/metadata/name', value: 'other' }]],
      ['replace-namespace', [{ op: 'replace', path: '/metadata/namespace', value: 'other' }]],
      // At 0 replicas a Scale has no spec.replicas to remove (Go leaves it out).
      ['remove-spec', [{ op: 'remove', path: '/spec' }]],
      ['remove-replicas-at-zero', [{ op: 'remove', path: '/spec/replicas' }]],
      // json-patch v4 replaces a member its object lacks as if added.
      ['replace-replicas-at-zero', [{ op: 'replace', path: '/spec/replicas', value: 1 }]],
    ];
    for (const [label, body] of jsonPatches)
      cases.push(
        subresourceCase(at(`json/${label}`), {
          method: 'PATCH',
          path,
          collection,
          body,
          contentType: 'application/json-patch+json',
        }),
      );
  }
  return cases;
}

/**
 * A strategic merge patch cannot change an object's apiVersion or kind: the reference reads the
 * merged map into the typed object without checking them. On status and scale as on the object.
 */
function strategicTypeMetaCases(): CorpusCase[] {
  const targets: [string, string, string][] = [
    ['pods/status', '/api/v1/namespaces/corpus/pods/fixture/status', '/api/v1/pods'],
    ['deployments/status', '/apis/apps/v1/namespaces/corpus/deployments/fixture/status', '/apis/apps/v1/deployments'],
    ['nodes/status', '/api/v1/nodes/fixture/status', '/api/v1/nodes'],
    ['namespaces/status', '/api/v1/namespaces/corpus/status', '/api/v1/namespaces'],
    ['deployments/scale', '/apis/apps/v1/namespaces/corpus/deployments/fixture/scale', '/apis/apps/v1/deployments'],
    ['configmaps', '/api/v1/namespaces/corpus/configmaps/subresource-strategic', '/api/v1/configmaps'],
  ];
  const patches: [string, JsonObject][] = [
    ['kind-other', { kind: 'Foo' }],
    ['apiversion-other', { apiVersion: 'nope.example.com/v9' }],
    ['kind-null', { kind: null }],
  ];
  // Earlier cases delete the config map fixture: this block brings its own.
  const configMap = subresourceCase('strategic-type-meta/configmaps/create', {
    method: 'POST',
    path: '/api/v1/namespaces/corpus/configmaps',
    collection: '/api/v1/configmaps',
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'subresource-strategic' } },
  });
  return [
    configMap,
    ...targets.flatMap(([target, path, collection]) =>
      patches.map(([label, body]) =>
        subresourceCase(`strategic-type-meta/${target}/${label}`, {
          method: 'PATCH',
          path,
          collection,
          body,
          contentType: 'application/strategic-merge-patch+json',
        }),
      ),
    ),
  ];
}

/**
 * The bodies of pods/eviction (a policy/v1 or v1beta1 Eviction) and pods/binding (a v1
 * Binding) decoded as the reference decodes them: their kind and version, their types, the
 * URL's namespace. Each acts on a pod of its own; what would evict or bind is a dry run.
 */
function evictionAndBindingCases(): CorpusCase[] {
  const pods = '/api/v1/namespaces/corpus/pods';
  const collection = '/api/v1/pods';
  const podType = servedTypes().find((t) => t.group === '' && t.kind === 'Pod')!;
  const cases: CorpusCase[] = [];
  const eviction = (name: string, extra: JsonObject = {}): JsonObject => ({
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name, namespace: NAMESPACE },
    ...extra,
  });
  const evicted = 'subresource-eviction';
  const evictions: [string, JsonValue, string?][] = [
    ['kind-other', { ...eviction(evicted), kind: 'Foo' }],
    ['kind-delete-options', { apiVersion: 'v1', kind: 'DeleteOptions' }],
    ['apiversion-core-v1', { ...eviction(evicted), apiVersion: 'v1' }],
    ['v1beta1-kind-other', { ...eviction(evicted), apiVersion: 'policy/v1beta1', kind: 'Foo' }],
    ['namespace-other', { ...eviction(evicted), metadata: { name: evicted, namespace: 'other' } }],
    ['grace-period-string', eviction(evicted, { deleteOptions: { gracePeriodSeconds: 'x' } })],
    ['delete-options-string', eviction(evicted, { deleteOptions: 'x' })],
    [
      'ignore-store-read-error-string',
      eviction(evicted, { deleteOptions: { ignoreStoreReadErrorWithClusterBreakingPotential: 'x' } }),
    ],
    ['unknown-field-strict', eviction(evicted, { bogus: 1 }), '?fieldValidation=Strict&dryRun=All'],
    ['apiversion-missing', { kind: 'Eviction', metadata: { name: evicted } }, '?dryRun=All'],
    ['v1beta1', { ...eviction(evicted), apiVersion: 'policy/v1beta1' }, '?dryRun=All'],
  ];
  cases.push(
    subresourceCase('eviction/create-pod', {
      method: 'POST',
      path: pods,
      collection,
      body: validObject(podType, evicted),
    }),
    ...evictions.map(([label, body, query]) =>
      subresourceCase(`eviction/${label}`, {
        method: 'POST',
        path: `${pods}/${evicted}/eviction${query ?? ''}`,
        collection,
        body,
      }),
    ),
  );
  const bound = 'subresource-binding';
  const binding = (target: JsonValue, extra: JsonObject = {}): JsonObject => ({
    apiVersion: 'v1',
    kind: 'Binding',
    metadata: { name: bound },
    target,
    ...extra,
  });
  const node = { kind: 'Node', name: 'fixture' };
  const bindings: [string, JsonValue, string?][] = [
    ['kind-other', { ...binding(node), kind: 'Foo' }],
    ['apiversion-apps-v1', { ...binding(node), apiVersion: 'apps/v1' }],
    ['namespace-other', binding(node, { metadata: { name: bound, namespace: 'other' } })],
    ['target-string', binding('fixture')],
    ['target-kind-pod', binding({ kind: 'Pod', name: 'fixture' })],
    ['target-kind-lower-case', binding({ kind: 'node', name: 'fixture' })],
    ['target-name-missing', binding({ kind: 'Node' })],
    ['valid', binding(node), '?dryRun=All'],
  ];
  cases.push(
    subresourceCase('binding/create-pod', {
      method: 'POST',
      path: pods,
      collection,
      body: validObject(podType, bound),
    }),
    ...bindings.map(([label, body, query]) =>
      subresourceCase(`binding/${label}`, {
        method: 'POST',
        path: `${pods}/${bound}/binding${query ?? ''}`,
        collection,
        body,
      }),
    ),
  );
  return cases;
}

/**
 * HEAD: the reference routes it to no resource path, object, collection or subresource alike
 * (405), but for the proxies. A HEAD answer has no body, so no Status is looked for.
 */
function headCases(): CorpusCase[] {
  const paths: [string, string, string][] = [
    ['collection', '/api/v1/namespaces/corpus/configmaps', '/api/v1/configmaps'],
    ['all-namespaces', '/api/v1/configmaps', '/api/v1/configmaps'],
    ['object', '/api/v1/namespaces/corpus/pods/fixture', '/api/v1/pods'],
    ['watch', '/api/v1/watch/namespaces/corpus/configmaps', '/api/v1/configmaps'],
    ['pods/status', '/api/v1/namespaces/corpus/pods/fixture/status', '/api/v1/pods'],
    ['pods/log', '/api/v1/namespaces/corpus/pods/fixture/log', '/api/v1/pods'],
    ['pods/exec', '/api/v1/namespaces/corpus/pods/fixture/exec?command=ls', '/api/v1/pods'],
    ['pods/ephemeralcontainers', '/api/v1/namespaces/corpus/pods/fixture/ephemeralcontainers', '/api/v1/pods'],
    ['deployments/scale', '/apis/apps/v1/namespaces/corpus/deployments/fixture/scale', '/apis/apps/v1/deployments'],
    ['nodes/status', '/api/v1/nodes/fixture/status', '/api/v1/nodes'],
    ['namespaces/status', '/api/v1/namespaces/corpus/status', '/api/v1/namespaces'],
  ];
  return paths.map(([label, path, collection]) => ({
    ...subresourceCase(`head/${label}`, { method: 'HEAD', path, collection }),
    plainAnswer: true as const,
  }));
}

/** A Scale is read as its parent is: at the resourceVersion the GET asks for, which must be one. */
function scaleGetCases(): CorpusCase[] {
  return ['abc', '-1', '1.5', '0', ''].map((resourceVersion) =>
    subresourceCase(`scale-get/resourceVersion=${resourceVersion}`, {
      method: 'GET',
      path: `/apis/apps/v1/namespaces/corpus/deployments/fixture/scale?resourceVersion=${resourceVersion}`,
      collection: '/apis/apps/v1/deployments',
    }),
  );
}

/**
 * serviceaccounts/token: a null spec is the empty one; a pod bound to is checked for the service
 * account it runs as before the uid it has.
 */
function tokenRequestCases(): CorpusCase[] {
  const accounts = '/api/v1/namespaces/corpus/serviceaccounts';
  const collection = '/api/v1/serviceaccounts';
  const token = `${accounts}/subresource-token/token`;
  const request = (spec: JsonValue): JsonObject => ({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec,
  });
  const bound = (kind: string, name: string): JsonObject =>
    request({ audiences: [], boundObjectRef: { apiVersion: 'v1', kind, name, uid: 'other' } });
  const requests: [string, JsonValue][] = [
    ['spec-null', request(null)],
    ['bound-pod-of-another-account-uid-other', bound('Pod', 'fixture')],
    ['bound-node-uid-other', bound('Node', 'fixture')],
  ];
  return [
    subresourceCase('token/create-account', {
      method: 'POST',
      path: accounts,
      collection,
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'subresource-token' } },
    }),
    ...requests.map(([label, body]) =>
      subresourceCase(`token/${label}`, { method: 'POST', path: token, collection, body }),
    ),
  ];
}

function subresourceCases(): CorpusCase[] {
  return [
    ...scaleCases(),
    ...strategicTypeMetaCases(),
    ...evictionAndBindingCases(),
    ...headCases(),
    ...scaleGetCases(),
    ...tokenRequestCases(),
  ];
}

// ---------------------------------------------------------------------------------------------
// Custom resource and scale differences left from the last round (parity/cr-tail/)

const CR_TAIL = 'parity/cr-tail';
const CR_TAIL_GROUP = 'crtail.corpus.example.com';
const CR_TAIL_V1 = `/apis/${CR_TAIL_GROUP}/v1/namespaces/${NAMESPACE}/tails`;
const CR_TAIL_V2 = `/apis/${CR_TAIL_GROUP}/v2/namespaces/${NAMESPACE}/tails`;
const CR_TAIL_ALL = `/apis/${CR_TAIL_GROUP}/v1/tails`;

/**
 * A kind served in two versions over one storage: v1 without subresources, so objects whose
 * replicas the scale cannot read are stored through it, and v2 with status and scale.
 */
function crTailCRD(): JsonObject {
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  };
  const scale = {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `tails.${CR_TAIL_GROUP}` },
    spec: {
      group: CR_TAIL_GROUP,
      scope: 'Namespaced',
      names: { plural: 'tails', singular: 'tail', kind: 'Tail', listKind: 'TailList' },
      versions: [
        { name: 'v1', served: true, storage: true, schema },
        { name: 'v2', served: true, storage: false, schema, subresources: { status: {}, scale } },
      ],
    },
  };
}

/**
 * A custom resource's status write keeps the stored kind and version, so another kind (or, in a
 * patch, another version or group) named in it is no error; its scale paths read as the
 * reference reads them, a stored value of the wrong type refusing every write (the 500s of the
 * scale's reads are replayed in custom-resource-scale-paths.json, not here); a strategic merge's
 * result is converted from its map, integers wrapping into int32 as Go converts them.
 */
function crTailCases(): CorpusCase[] {
  const json = (id: string, method: string, path: string, body: JsonValue, contentType = 'application/json') => ({
    id: `${CR_TAIL}/${id}`,
    method,
    path,
    headers: { 'content-type': contentType },
    body: JSON.stringify(body),
    collection: CR_TAIL_ALL,
  });
  const merge = 'application/merge-patch+json';
  const stored: Record<string, JsonObject> = {
    counted: { spec: { replicas: 1 }, status: { replicas: 1, selector: 'a=b' } },
    'status-replicas-string': { spec: { replicas: 1 }, status: { replicas: 'x' } },
    'status-replicas-past-int32': { spec: { replicas: 1 }, status: { replicas: 3000000000 } },
    'selector-number': { spec: { replicas: 1 }, status: { replicas: 1, selector: 5 } },
    'spec-replicas-missing': { spec: {}, status: { replicas: 1 } },
  };
  const cases: CorpusCase[] = [
    { ...json('crd', 'POST', CRD_COLLECTION, crTailCRD()), collection: CRD_COLLECTION },
    ...Object.entries(stored).map(([name, rest], index) => ({
      ...json(`store/${name}`, 'POST', CR_TAIL_V1, {
        apiVersion: `${CR_TAIL_GROUP}/v1`,
        kind: 'Tail',
        metadata: { name },
        ...rest,
      }),
      ...(index === 0 ? { awaitServed: CR_TAIL_V1 } : {}),
    })),
  ];
  const status = `${CR_TAIL_V2}/counted/status?dryRun=All`;
  cases.push(
    {
      ...json('status/merge-kind-other', 'PATCH', status, { kind: 'Gadget', status: { phase: 'b' } }, merge),
      awaitServed: CR_TAIL_V2,
    },
    json('status/merge-apiversion-other-version', 'PATCH', status, { apiVersion: `${CR_TAIL_GROUP}/v9` }, merge),
    json(
      'status/json-apiversion-other-group',
      'PATCH',
      status,
      [{ op: 'replace', path: '/apiVersion', value: 'apps/v1' }],
      'application/json-patch+json',
    ),
    json('status/merge-kind-number', 'PATCH', status, { kind: 5 }, merge),
    json('status/merge-kind-other-main', 'PATCH', `${CR_TAIL_V2}/counted?dryRun=All`, { kind: 'Gadget' }, merge),
  );
  const scaleBody = (name: string, replicas: number) => ({
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name },
    spec: { replicas },
  });
  cases.push(
    json('scale/put-negative', 'PUT', `${CR_TAIL_V2}/counted/scale?dryRun=All`, scaleBody('counted', -1)),
    json(
      'scale/put-status-replicas-past-int32',
      'PUT',
      `${CR_TAIL_V2}/status-replicas-past-int32/scale?dryRun=All`,
      scaleBody('status-replicas-past-int32', 2),
    ),
    json(
      'scale/merge-unchanged-spec-replicas-missing',
      'PATCH',
      `${CR_TAIL_V2}/spec-replicas-missing/scale?dryRun=All`,
      {},
      merge,
    ),
    json(
      'scale/merge-object-status-replicas-string',
      'PATCH',
      `${CR_TAIL_V2}/status-replicas-string?dryRun=All`,
      { metadata: { labels: { x: 'y' } } },
      merge,
    ),
    json(
      'scale/merge-status-selector-number',
      'PATCH',
      `${CR_TAIL_V2}/selector-number/status?dryRun=All`,
      { status: { other: 1 } },
      merge,
    ),
  );
  const deployment = '/apis/apps/v1/namespaces/corpus/deployments/fixture';
  for (const [label, replicas] of Object.entries({
    '4294967296': '4294967296',
    '2147483648': '2147483648',
    '1.5': '1.5',
    'string-3': '"3"',
    '1e400': '1e400',
  }))
    for (const [target, path] of [
      ['scale', `${deployment}/scale`],
      ['deployment', deployment],
    ])
      cases.push({
        id: `${CR_TAIL}/strategic/${target}/replicas-${label}`,
        method: 'PATCH',
        path: `${path}?dryRun=All`,
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: `{"spec":{"replicas":${replicas}}}`,
        collection: '/apis/apps/v1/deployments',
      });
  return cases;
}

// Methods

/**
 * Methods on every kind of path, as Go's server routes them: it takes any token as a method
 * (Node's parser knows a fixed list, so these are written raw), its go-restful routes match a
 * method case for case and refuse the others, and its mux's handlers (`/apis`, a group, OpenAPI,
 * health, a custom resource's group version, pprof) serve any method alike.
 */
function methodCases(): CorpusCase[] {
  const configMaps = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  const pod = `/api/v1/namespaces/${NAMESPACE}/pods/fixture`;
  const customGroupVersion = `/apis/${CUSTOM_API_VERSION}`;
  const raw: [string, string, string][] = [
    // Methods Node's parser does not know.
    ['FOO', 'collection', configMaps],
    ['FOO', 'object', `${configMaps}/fixture`],
    ['FOO', 'status', `${pod}/status`],
    ['FOO', 'unknown-subresource', `${pod}/nope`],
    ['FOO', 'proxy', `${pod}/proxy/a`],
    ['FOO', 'watch-prefix', `/api/v1/watch/namespaces/${NAMESPACE}/configmaps`],
    ['FOO', 'custom-collection', CUSTOM_COLLECTION],
    ["F!#$%&'*+-.^_`|~O", 'collection', configMaps],
    ['F@O', 'collection', configMaps],
    ['FOO', 'api', '/api'],
    ['FOO', 'api-v1', '/api/v1'],
    ['FOO', 'apis', '/apis'],
    ['FOO', 'apis-apps', '/apis/apps'],
    ['FOO', 'apis-apps-v1', '/apis/apps/v1'],
    ['FOO', 'custom-group-version', customGroupVersion],
    ['FOO', 'version', '/version'],
    ['FOO', 'healthz', '/healthz'],
    ['FOO', 'livez-ping', '/livez/ping'],
    ['FOO', 'openapi-v2', '/openapi/v2'],
    ['FOO', 'openapi-v3', '/openapi/v3'],
    ['FOO', 'openapi-v3-apps', '/openapi/v3/apis/apps/v1'],
    ['FOO', 'openid-configuration', '/.well-known/openid-configuration'],
    ['FOO', 'root', '/'],
    ['FOO', 'outside-api', '/foo'],
    // A known method in another case is no route's method.
    ['get', 'collection', configMaps],
    ['get', 'object', `${configMaps}/fixture`],
    ['Get', 'collection', configMaps],
    ['get', 'proxy', `${pod}/proxy/a`],
    ['get', 'custom-collection', CUSTOM_COLLECTION],
    ['get', 'version', '/version'],
    ['get', 'api-v1', '/api/v1'],
    ['get', 'apis', '/apis'],
  ];
  const cases: CorpusCase[] = raw.map(([method, label, path]) => ({
    id: `parity/methods/${method}/${label}`,
    method,
    path,
    headers: {},
    rawHead: rawHead(`${method} ${path} HTTP/1.1`, ['Host: 127.0.0.1']),
    collection: '/api/v1/configmaps',
    ...(path.startsWith(CUSTOM_COLLECTION) || path === customGroupVersion ? { awaitServed: CUSTOM_COLLECTION } : {}),
    // Go's own refusal of a method that is no token, and its mux's 404 outside the API.
    ...(method === 'F@O' || label === 'outside-api' ? { plainAnswer: true as const } : {}),
  }));
  const body = '{"a":1}';
  cases.push({
    id: 'parity/methods/FOO/collection-with-body',
    method: 'FOO',
    path: configMaps,
    headers: {},
    rawHead: rawHead(`FOO ${configMaps} HTTP/1.1`, ['Host: 127.0.0.1', `Content-Length: ${body.length}`]),
    body,
    collection: '/api/v1/configmaps',
  });
  // A chunked body is decoded as Go decodes it, and the request routed; a bad chunk, unread by
  // the route, leaves its answer as it was.
  const chunked: [string, string, string][] = [
    ['collection-chunked', configMaps, `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`],
    ['healthz-chunked', '/healthz', `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`],
    ['collection-bad-chunk', configMaps, `zz\r\n${body}\r\n0\r\n\r\n`],
  ];
  for (const [label, path, chunks] of chunked) {
    cases.push({
      id: `parity/methods/FOO/${label}`,
      method: 'FOO',
      path,
      headers: {},
      rawHead: rawHead(`FOO ${path} HTTP/1.1`, ['Host: 127.0.0.1', 'Transfer-Encoding: chunked']),
      body: chunks,
      collection: '/api/v1/configmaps',
    });
  }
  // Known methods on the mux's handlers that take any.
  const known: [string, string][] = [
    ['POST', customGroupVersion],
    ['PUT', customGroupVersion],
    ['DELETE', customGroupVersion],
    ['HEAD', customGroupVersion],
    ['OPTIONS', customGroupVersion],
    ['POST', '/debug/pprof/'],
    ['DELETE', '/debug/pprof/'],
  ];
  for (const [method, path] of known) {
    cases.push({
      id: `parity/methods/${method}${path}`,
      method,
      path,
      headers: {},
      collection: '/api/v1/configmaps',
      ...(path === customGroupVersion ? { awaitServed: CUSTOM_COLLECTION } : {}),
    });
  }
  // A custom resource's handler serves by verb: a POST on an object's path creates what the body
  // names, a PUT or PATCH on the collection lacks a name, and the all-namespaces path of a
  // namespaced kind takes list and watch alone (anything else is the mux's plain 404).
  const custom: [string, string, string, Readonly<Record<string, string>>, string?][] = [
    [
      'POST-on-object',
      'POST',
      `${CUSTOM_COLLECTION}/name-in-url`,
      JSON_TYPE,
      JSON.stringify(widget({ metadata: { name: 'posted-on-object' } })),
    ],
    ['PUT-on-collection', 'PUT', CUSTOM_COLLECTION, JSON_TYPE, JSON.stringify(widget({}))],
    ['PATCH-on-collection-no-type', 'PATCH', CUSTOM_COLLECTION, {}, '{}'],
    ['PATCH-on-collection', 'PATCH', CUSTOM_COLLECTION, { 'content-type': 'application/merge-patch+json' }, '{}'],
    ['POST-all-namespaces', 'POST', CUSTOM_ALL, JSON_TYPE, JSON.stringify(widget({}))],
    ['DELETE-all-namespaces', 'DELETE', CUSTOM_ALL, {}],
  ];
  for (const [label, method, path, headers, body] of custom) {
    cases.push({
      id: `parity/methods/custom/${label}`,
      method,
      path,
      headers,
      body,
      collection: CUSTOM_ALL,
      awaitServed: CUSTOM_COLLECTION,
      ...(path.startsWith(CUSTOM_ALL) ? { plainAnswer: true as const } : {}),
    });
  }
  return cases;
}

// Small request-parity differences left from the probes of issue 26 (parity/tail2/)

const TAIL2 = 'parity/tail2';

/**
 * A body that repeats apiVersion or kind: the reference reads every coming of the key into its
 * struct of two strings, so an earlier value of another JSON type is refused even where a later
 * one is a string. capstan read only the last (JSON.parse) and created the object.
 */
function repeatedTypeMetaCases(): CorpusCase[] {
  const configMaps = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const bodies: [string, string, string, string][] = [
    [
      'kind-number-first',
      configMaps,
      '/api/v1/configmaps',
      '{"kind":5,"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"tail2-a"}}',
    ],
    [
      'api-version-list-other-case',
      configMaps,
      '/api/v1/configmaps',
      '{"kind":"ConfigMap","APIVERSION":[],"apiVersion":"v1","metadata":{"name":"tail2-b"}}',
    ],
    [
      'crd-kind-bool-first',
      crds,
      crds,
      '{"kind":true,"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1","metadata":{"name":"x"}}',
    ],
  ];
  return ['Ignore', 'Strict'].flatMap((validation) =>
    bodies.map(([label, path, collection, body]) => ({
      id: `${TAIL2}/repeated-type-meta/${validation}/${label}`,
      method: 'POST',
      path: `${path}?fieldValidation=${validation}&dryRun=All`,
      headers: JSON_TYPE,
      body,
      collection,
    })),
  );
}

/**
 * A key repeated inside a JSON Patch operation's value: under Strict a 422 that reports it in
 * the patch and, where no later operation opened the value, in the patched object; under Warn
 * and Ignore the patch is taken (the last of the key wins). Dry runs on one ConfigMap.
 */
function jsonPatchValueRepeatedKeyCases(): CorpusCase[] {
  const configMaps = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  const patches: [string, string][] = [
    ['depth-1', '[{"op":"add","path":"/data","value":{"a":"1","a":"2"}}]'],
    [
      'in-list',
      '[{"op":"add","path":"/metadata/ownerReferences","value":[{"apiVersion":"v1","kind":"ConfigMap","name":"o","uid":"u1","uid":"u2"}]}]',
    ],
    ['test-op', '[{"op":"test","path":"/data","value":{"a":"1","a":"1"}}]'],
    [
      'then-opened',
      '[{"op":"add","path":"/data","value":{"a":"1","a":"2"}},{"op":"add","path":"/data/b","value":"3"}]',
    ],
    [
      'copied',
      '[{"op":"add","path":"/metadata/labels","value":{"x":"1","x":"2"}},{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"}]',
    ],
  ];
  return [
    {
      id: `${TAIL2}/json-patch-value-repeated-key/create-target`,
      method: 'POST',
      path: configMaps,
      headers: JSON_TYPE,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'tail2-json-value' },
        data: { a: '1' },
      }),
      collection: '/api/v1/configmaps',
    },
    ...['Strict', 'Warn', 'Ignore'].flatMap((validation) =>
      patches.map(([label, body]) => ({
        id: `${TAIL2}/json-patch-value-repeated-key/${validation}/${label}`,
        method: 'PATCH',
        path: `${configMaps}/tail2-json-value?fieldValidation=${validation}&dryRun=All`,
        headers: { 'content-type': 'application/json-patch+json' },
        body,
        collection: '/api/v1/configmaps',
      })),
    ),
  ];
}

/**
 * `$patch: replace` or `delete` at the top of a strategic merge patch: the reference applies it
 * (the patch without its directive becomes the object, or nothing does) and answers for the
 * result: a 400 for the name it then lacks, a 200 where the patch names the object. capstan
 * refused every such patch. Dry runs on one ConfigMap.
 */
function strategicWholeObjectDirectiveCases(): CorpusCase[] {
  const configMaps = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
  const patches: [string, string][] = [
    ['replace-empty', '{"$patch":"replace"}'],
    ['replace-unnamed', '{"$patch":"replace","data":{"r":"1"}}'],
    ['replace-named', '{"$patch":"replace","metadata":{"name":"tail2-strategic-whole"},"data":{"r":"1"}}'],
    ['delete', '{"$patch":"delete"}'],
  ];
  return [
    {
      id: `${TAIL2}/strategic-whole-object-directive/create-target`,
      method: 'POST',
      path: configMaps,
      headers: JSON_TYPE,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'tail2-strategic-whole' },
        data: { a: '1' },
      }),
      collection: '/api/v1/configmaps',
    },
    ...patches.map(([label, body]) => ({
      id: `${TAIL2}/strategic-whole-object-directive/${label}`,
      method: 'PATCH',
      path: `${configMaps}/tail2-strategic-whole?dryRun=All`,
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body,
      collection: '/api/v1/configmaps',
    })),
  ];
}

function tail2Cases(): CorpusCase[] {
  return [...repeatedTypeMetaCases(), ...jsonPatchValueRepeatedKeyCases(), ...strategicWholeObjectDirectiveCases()];
}

export function corpusCases(): CorpusCase[] {
  const types = servedTypes();
  const cases = [
    ...types.flatMap((type, index) => schemaCases(type, index)),
    ...queryCases(),
    ...patchCases(),
    ...mediaTypeCases(),
    ...routeMediaTypeCases(),
    ...routingCases(),
    ...parityCases(),
    ...recordedValidationCases(),
    ...customResourceCases(),
    ...openAPIV3ProtobufCases(),
    ...customResourceDefinitionCases(),
    ...patchFormCases(),
    ...patchTailCases(),
    ...subresourceCases(),
    ...crTailCases(),
    ...methodCases(),
    ...tail2Cases(),
  ];
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`duplicate corpus id ${c.id}`);
    ids.add(c.id);
  }
  return cases;
}
