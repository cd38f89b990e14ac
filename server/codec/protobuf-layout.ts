/**
 * The protobuf layout of each message, read off the generated schema data (the `x-capstan-protobuf`
 * facts of every property, the inlined embedded structs, and the messages no definition
 * describes field for field). Nothing here is typed by hand but the handful of messages whose
 * JSON form is not a JSON object of their fields (times, quantities, int-or-string, raw JSON),
 * which `protobuf.ts` special-cases by name.
 */
import { definitionFor, protobufMessageFor, type ProtobufField } from '../schema/definitions';

/** Protobuf wire types. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const VARINT_SCALARS = new Set(['int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'bool']);
const FIXED64_SCALARS = new Set(['double', 'fixed64', 'sfixed64']);
const FIXED32_SCALARS = new Set(['float', 'fixed32', 'sfixed32']);
const SCALARS = new Set([...VARINT_SCALARS, ...FIXED64_SCALARS, ...FIXED32_SCALARS, 'string', 'bytes']);

export function isScalar(type: string): boolean {
  return SCALARS.has(type);
}

/**
 * The wire type from the field's proto type. The struct tags the schema's `wire` comes from
 * are wrong in places (`bytes` on some int32 and bool members); the generated marshalling code,
 * which is what clients run, follows the proto type.
 */
export function wireTypeOf(type: string): number {
  if (VARINT_SCALARS.has(type)) return WIRE_VARINT;
  if (FIXED64_SCALARS.has(type)) return WIRE_FIXED64;
  if (FIXED32_SCALARS.has(type)) return WIRE_FIXED32;
  return WIRE_BYTES;
}

export interface MapLayout {
  readonly keyType: string;
  readonly valueType: string;
}

export interface FieldLayout {
  /** The JSON property name. */
  readonly name: string;
  readonly tag: number;
  /** Scalar name or message definition name. */
  readonly type: string;
  readonly repeated: boolean;
  readonly map?: MapLayout;
  /** The Go member is a pointer: present on the wire means present in JSON, even when zero. */
  readonly pointer: boolean;
  /** The Go member is written to JSON even when zero (it has an enforced default). */
  readonly alwaysInJSON: boolean;
}

/** An embedded struct: its fields sit in the parent's JSON object but in a nested message. */
export interface InlineLayout {
  readonly tag: number;
  readonly type: string;
}

export interface MessageLayout {
  readonly name: string;
  /** Fields in tag order. */
  readonly fields: readonly FieldLayout[];
  readonly inlines: readonly InlineLayout[];
  /** Fields and inlined structs together, in tag order: the order the reference writes them. */
  readonly ordered: ReadonlyArray<{ readonly field: FieldLayout } | { readonly inline: InlineLayout }>;
  readonly byTag: ReadonlyMap<number, FieldLayout>;
  readonly inlineByTag: ReadonlyMap<number, InlineLayout>;
  /**
   * The JSON names of the list and map members without `omitempty` that are not pointers: an
   * empty one is not on the wire, and the reference's JSON prints the nil it decodes to as
   * `null` (a HorizontalPodAutoscaler's `status.currentMetrics`).
   */
  readonly nullWhenAbsent: readonly string[];
  /** The JSON names of the repeated members that are not maps: what a decode fills item by item. */
  readonly lists: readonly string[];
}

const layouts = new Map<string, MessageLayout>();

/** The layout of a message by its definition name; throws for a name without protobuf facts. */
export function messageLayout(name: string): MessageLayout {
  let layout = layouts.get(name);
  if (layout === undefined) {
    layout = buildLayout(name);
    layouts.set(name, layout);
  }
  return layout;
}

function fieldLayout(name: string, facts: ProtobufField, alwaysInJSON: boolean): FieldLayout {
  return {
    name,
    tag: facts.tag,
    type: facts.type ?? 'bytes',
    repeated: facts.repeated === true,
    ...(facts.map ? { map: { keyType: facts.map.key.type, valueType: facts.map.value.type } } : {}),
    pointer: facts.pointer === true,
    alwaysInJSON,
  };
}

/**
 * A member without `omitempty` whose default is its zero value (`containerPort: 0`) is written
 * to JSON even when zero. An `omitempty` one (`minReadySeconds`, even with its `+default=0`) is
 * left out when zero, as the reference's JSON leaves it; one with another default (`protocol:
 * TCP`) reads as absent when zero, so that defaulting fills it as the reference's defaulting
 * fills an empty Go string.
 */
function writtenWhenZero(facts: ProtobufField, defaultValue: unknown): boolean {
  return facts.omitempty !== true && (defaultValue === '' || defaultValue === 0 || defaultValue === false);
}

function buildLayout(name: string): MessageLayout {
  const fields: FieldLayout[] = [];
  const nullWhenAbsent: string[] = [];
  const inlines: InlineLayout[] = [];
  const message = protobufMessageFor(name);
  if (message !== undefined) {
    for (const field of message.fields) fields.push(fieldLayout(field.name, field, false));
  } else {
    const definition = definitionFor(name);
    if (definition === undefined) throw new Error(`no protobuf layout for ${name}`);
    for (const [property, schema] of Object.entries(definition.properties ?? {})) {
      const facts = schema['x-capstan-protobuf'];
      if (facts === undefined) continue;
      fields.push(fieldLayout(property, facts, writtenWhenZero(facts, schema.default)));
      if ((facts.repeated === true || facts.map !== undefined) && facts.omitempty !== true && facts.pointer !== true)
        nullWhenAbsent.push(property);
    }
    for (const inline of definition['x-capstan-protobuf-inline'] ?? [])
      inlines.push({ tag: inline.tag, type: inline.type });
  }
  fields.sort((a, b) => a.tag - b.tag);
  const ordered = [
    ...fields.map((field) => ({ tag: field.tag, entry: { field } })),
    ...inlines.map((inline) => ({ tag: inline.tag, entry: { inline } })),
  ]
    .sort((a, b) => a.tag - b.tag)
    .map(({ entry }) => entry);
  return {
    name,
    fields,
    inlines,
    ordered,
    byTag: new Map(fields.map((field) => [field.tag, field])),
    inlineByTag: new Map(inlines.map((inline) => [inline.tag, inline])),
    nullWhenAbsent,
    lists: fields.filter((field) => field.repeated && !field.map).map((field) => field.name),
  };
}
