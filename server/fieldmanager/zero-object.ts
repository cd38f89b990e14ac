/**
 * A kind's empty object as the reference's field manager compares a create against: Go's zero
 * struct turned into JSON. Struct members that are not pointers are there (empty objects,
 * recursively: the schema gives them `default: {}`), slices, maps and pointers without
 * omitempty are null, and so is a time that is not a pointer (a template's creationTimestamp:
 * servers before 1.34 print it as null, 1.34 omits it; either way it never counts as set).
 * A plain scalar member that is neither a pointer nor omitempty is there at its zero value, so
 * a create that sends it at zero does not own it (a ResourceSlice's `pool.generation: 0`).
 * Against it, only what lies inside those always-present structs counts as created: a created
 * Deployment's Update entry has no `.` on spec, template or strategy, yet has one on a list
 * that was absent.
 */
import type { Definitions, ResolvedSchema, SchemaNode } from '../validation/decode';
import { resolveSchema } from '../validation/decode';

interface ProtobufFacts {
  readonly pointer?: boolean;
  readonly omitempty?: boolean;
}

function protobufFacts(declared: SchemaNode): ProtobufFacts | undefined {
  return (declared as { readonly 'x-capstan-protobuf'?: ProtobufFacts })['x-capstan-protobuf'];
}

const TIME_DEFINITIONS = [
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime',
];

/**
 * Whether a member declared as `declared`, of the definition `definition`, is a metav1.Time or
 * MicroTime Go holds by value: its JSON has it (null when zero) whatever omitempty says.
 */
export function isValueTime(declared: SchemaNode, definition: string | undefined): boolean {
  const facts = protobufFacts(declared);
  return facts !== undefined && facts.pointer !== true && TIME_DEFINITIONS.includes(definition ?? '');
}

/** Whether a member declared as `declared` is a struct Go holds by value: its JSON always has it. */
export function isAlwaysPresentStruct(declared: SchemaNode, resolved: ResolvedSchema): boolean {
  const fallback = (declared as { readonly default?: unknown }).default;
  return (
    resolved.node.properties !== undefined &&
    typeof fallback === 'object' &&
    fallback !== null &&
    !Array.isArray(fallback)
  );
}

export function zeroObject(definitions: Definitions, schema: ResolvedSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set((schema.node as { readonly required?: readonly string[] }).required ?? []);
  for (const [key, declared] of Object.entries(schema.node.properties ?? {})) {
    const resolved = resolveSchema(definitions, declared);
    if (isAlwaysPresentStruct(declared, resolved)) out[key] = zeroObject(definitions, resolved);
    else if (isValueTime(declared, resolved.definition)) out[key] = null;
    else if (isScalar(resolved.node)) {
      const zero = valueScalarZero(declared, resolved);
      if (zero !== undefined) out[key] = zero;
    } else if (isNilMember(declared, required.has(key))) out[key] = null;
  }
  return out;
}

/**
 * A slice, map or pointer Go writes as null when nil: one without omitempty. The Go facts decide
 * where the schema carries them (a `+required` pointer may still be omitempty, as an IPAddress's
 * parentRef is); without them, what the schema requires.
 */
function isNilMember(declared: SchemaNode, required: boolean): boolean {
  const facts = protobufFacts(declared);
  return facts === undefined ? required : facts.omitempty !== true;
}

function isScalar(node: SchemaNode): boolean {
  return node.type === 'string' || node.type === 'integer' || node.type === 'number' || node.type === 'boolean';
}

/**
 * A plain Go scalar (no named type such as Quantity or IntOrString) that is neither a pointer
 * nor omitempty: its zero value; else nothing, as Go's JSON leaves it out.
 */
function valueScalarZero(declared: SchemaNode, resolved: ResolvedSchema): string | number | boolean | undefined {
  const facts = protobufFacts(declared);
  if (facts === undefined || facts.pointer === true || facts.omitempty === true || resolved.definition !== undefined)
    return undefined;
  if (resolved.node.type === 'string') return '';
  return resolved.node.type === 'boolean' ? false : 0;
}
