// The schema facts of the built-in kinds, generated from the reference's Go API modules by
// tools/schemagen (`make schemas`) into generated/definitions.json: OpenAPI v2 definitions
// keyed by the reference's definition names, plus the protobuf facts the encoder needs.
// The JSON is read once, on first use (parsing it costs about 15-25 ms), so start-up pays
// nothing until a schema is needed.
import * as fs from 'node:fs';
import { generatedFile, generatedFileCandidates } from './generated-files';
import type { GroupVersionKind } from '../../api/identity';

/** A map field's entry message: key at field 1, value at field 2. */
export interface ProtobufMapPart {
  /** Proto scalar name or message definition name. */
  type: string;
  wire: ProtobufWire;
}

export type ProtobufWire = 'varint' | 'bytes' | 'fixed64' | 'fixed32' | 'zigzag32' | 'zigzag64';

/** How one property is written in the reference's protobuf encoding. */
export interface ProtobufField {
  tag: number;
  wire: ProtobufWire;
  /** Proto scalar ("string", "int64", "bytes", ...) or a message's definition name; absent for maps. */
  type?: string;
  /** The proto field name, only where it differs from the JSON property name. */
  name?: string;
  repeated?: boolean;
  packed?: boolean;
  map?: { key: ProtobufMapPart; value: ProtobufMapPart };
  /** The Go type the reference casts the field to (informative). */
  casttype?: string;
  /** The Go member is a pointer: a zero value on the wire is set, not absent. */
  pointer?: boolean;
  /** The Go member's JSON tag says `omitempty`: the reference's JSON leaves out its zero value. */
  omitempty?: boolean;
}

/** An embedded struct inlined into the JSON object but written as one nested message. */
export interface ProtobufInline {
  tag: number;
  wire: ProtobufWire;
  /** Definition name of the embedded struct, whose properties carry their own protobuf facts. */
  type: string;
}

/** One OpenAPI v2 schema: a definition, a property, an item or a map value. */
export interface Schema {
  $ref?: string;
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  items?: Schema;
  additionalProperties?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: string[];
  default?: unknown;
  'x-kubernetes-group-version-kind'?: GroupVersionKind[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** One marker value as a string, several as a list, as the reference emits them. */
  'x-kubernetes-patch-strategy'?: string | string[];
  'x-kubernetes-patch-merge-key'?: string | string[];
  /** meta/v1 kinds the reference registers in every served group version (DeleteOptions, WatchEvent, ...). */
  'x-capstan-every-group-version'?: boolean;
  /** The types an OpenAPI v3 document offers as `oneOf` (Quantity, IntOrString). */
  'x-capstan-openapi-v3-one-of'?: string[];
  'x-capstan-protobuf'?: ProtobufField;
  'x-capstan-protobuf-inline'?: ProtobufInline[];
}

/** A message whose protobuf fields cannot be read off a definition's properties. */
export interface ProtobufMessage {
  fields: Array<ProtobufField & { name: string }>;
}

export interface SchemaData {
  metadata: { generator: string; release: string; modules: Record<string, string> };
  definitions: Record<string, Schema>;
  protobufMessages: Record<string, ProtobufMessage>;
}

const dataFileName = 'definitions.json';

let loaded: SchemaData | undefined;
let kindIndex: Map<string, string> | undefined;

/** The whole generated document, read and parsed on first call. */
export function schemaData(): SchemaData {
  if (loaded === undefined) {
    const file = generatedFile(dataFileName);
    if (file === undefined) {
      throw new Error(
        `schema data not found; looked at ${generatedFileCandidates(dataFileName).join(', ')} (run \`make schemas\`)`,
      );
    }
    loaded = JSON.parse(fs.readFileSync(file, 'utf8')) as SchemaData;
  }
  return loaded;
}

export function definitionFor(name: string): Schema | undefined {
  return schemaData().definitions[name];
}

function gvkKey({ group, version, kind }: GroupVersionKind): string {
  return `${group}/${version}/${kind}`;
}

/**
 * The definition of a kind. meta/v1 kinds registered in every group version (DeleteOptions,
 * WatchEvent, ...) answer for any group.
 */
export function definitionForKind(gvk: GroupVersionKind): { name: string; definition: Schema } | undefined {
  if (kindIndex === undefined) {
    kindIndex = new Map();
    for (const [name, definition] of Object.entries(schemaData().definitions)) {
      for (const kind of definition['x-kubernetes-group-version-kind'] ?? []) {
        kindIndex.set(gvkKey(kind), name);
      }
    }
  }
  const name =
    kindIndex.get(gvkKey(gvk)) ??
    everyGroupVersionKind(kindIndex.get(gvkKey({ group: '', version: 'v1', kind: gvk.kind })));
  return name === undefined ? undefined : { name, definition: schemaData().definitions[name] };
}

function everyGroupVersionKind(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  return definitionFor(name)?.['x-capstan-every-group-version'] ? name : undefined;
}

const refPrefix = '#/definitions/';

/** The definition name a `$ref` points at. */
export function refName(ref: string): string {
  if (!ref.startsWith(refPrefix)) throw new Error(`not a definitions reference: ${ref}`);
  return ref.slice(refPrefix.length);
}

/** Follows a schema's `$ref` (if any) to the definition it names; other schemas come back as they are. */
export function resolveRef(schema: Schema): Schema {
  if (schema.$ref === undefined) return schema;
  const name = refName(schema.$ref);
  const definition = definitionFor(name);
  if (definition === undefined) throw new Error(`unknown definition ${name}`);
  return definition;
}

/** The protobuf fields of a message that no definition describes field for field. */
export function protobufMessageFor(name: string): ProtobufMessage | undefined {
  return schemaData().protobufMessages[name];
}
