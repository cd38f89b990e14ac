/**
 * `/openapi/v3/<group version>` in protobuf: the JSON document as gnostic's `openapi.v3.Document`
 * (gnostic-models' openapiv3/OpenAPIv3.proto), made the way kube-openapi makes it, by reading the
 * JSON with gnostic's `ParseDocument` and marshaling the message: fields in number order, maps
 * as repeated name/value entries in the document's order, scalars left out at their zero value,
 * a message written whenever its member is present (even empty, even `null`). Extension values,
 * enums and examples are `Any`s holding yaml.v3's text of the value (`yaml-v3-text.ts`), a
 * schema's `default` a `DefaultType` (a number, boolean or string; any other value an empty
 * one), and a map with a `$ref` member a `Reference` in place of the object it stands for.
 *
 * Written straight from the JSON value with protobufjs's Writer (no message objects between):
 * the message table below names each member's field number and kind. Members gnostic does not
 * know are left out; gnostic would refuse a document holding one, which capstan's never do.
 */
import { Writer } from 'protobufjs/minimal';
import { yamlV3Text } from '../codec/yaml-v3-text';

/** The Content-Type of the answer, and the subtypes a request may ask for it by. */
export const OPENAPI_V3_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v3.v1.0+protobuf';
export const OPENAPI_V3_PROTOBUF_SUBTYPES = [
  'com.github.proto-openapi.spec.v3.v1.0+protobuf',
  'com.github.proto-openapi.spec.v3@v1.0+protobuf',
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_BYTES = 2;

/** How a member becomes a field. */
type Kind =
  | { readonly of: 'string' | 'bool' | 'double' | 'int64' | 'strings' | 'any' | 'anys' | 'default' }
  /** A nested message, or (`repeated`) a JSON array of them. */
  | { readonly of: 'message'; readonly type: string; readonly repeated?: boolean }
  /** A map as repeated `Named<type>` entries: the members whose names match `names` (all without). */
  | { readonly of: 'map'; readonly type: string; readonly names?: RegExp }
  /** `<type>OrReference`: the object (1), or a `Reference` (2) when it has a `$ref`. */
  | { readonly of: 'orReference'; readonly type: string; readonly repeated?: boolean }
  /** `AdditionalPropertiesItem`: a schema or reference (1), or a boolean (2). */
  | { readonly of: 'additionalProperties' }
  /** `ItemsItem`: the one schema or reference (1) of `items`. */
  | { readonly of: 'items' };

interface Field {
  readonly number: number;
  /** The JSON member; unused for `extensions`. */
  readonly member: string;
  readonly kind: Kind;
}

const string = { of: 'string' } as const;
const bool = { of: 'bool' } as const;
const double = { of: 'double' } as const;
const int64 = { of: 'int64' } as const;
const strings = { of: 'strings' } as const;
const any = { of: 'any' } as const;
const message = (type: string): Kind => ({ of: 'message', type });
const messages = (type: string): Kind => ({ of: 'message', type, repeated: true });
const orReference = (type: string): Kind => ({ of: 'orReference', type });
const map = (type: string, names?: RegExp): Kind => ({ of: 'map', type, names });
const EXTENSION_NAME = /^x-/;
/** The `x-` members, as `repeated NamedAny specification_extension`. */
const extensions = (number: number): Field => ({ number, member: '', kind: map('Any', EXTENSION_NAME) });
const field = (number: number, member: string, kind: Kind): Field => ({ number, member, kind });

/** The messages the documents use, fields in number order. */
const MESSAGES: Readonly<Record<string, readonly Field[]>> = {
  Document: [
    field(1, 'openapi', string),
    field(2, 'info', message('Info')),
    field(3, 'servers', messages('Server')),
    field(4, 'paths', message('Paths')),
    field(5, 'components', message('Components')),
    field(6, 'security', messages('SecurityRequirement')),
    field(7, 'tags', messages('Tag')),
    field(8, 'externalDocs', message('ExternalDocs')),
    extensions(9),
  ],
  Info: [
    field(1, 'title', string),
    field(2, 'description', string),
    field(3, 'termsOfService', string),
    field(4, 'contact', message('Contact')),
    field(5, 'license', message('License')),
    field(6, 'version', string),
    extensions(7),
    field(8, 'summary', string),
  ],
  Contact: [field(1, 'name', string), field(2, 'url', string), field(3, 'email', string), extensions(4)],
  License: [field(1, 'name', string), field(2, 'url', string), extensions(3)],
  Server: [field(1, 'url', string), field(2, 'description', string), extensions(4)],
  Tag: [
    field(1, 'name', string),
    field(2, 'description', string),
    field(3, 'externalDocs', message('ExternalDocs')),
    extensions(4),
  ],
  ExternalDocs: [field(1, 'description', string), field(2, 'url', string), extensions(3)],
  Paths: [{ number: 1, member: '', kind: map('PathItem', /^\//) }, extensions(2)],
  PathItem: [
    field(1, '$ref', string),
    field(2, 'summary', string),
    field(3, 'description', string),
    field(4, 'get', message('Operation')),
    field(5, 'put', message('Operation')),
    field(6, 'post', message('Operation')),
    field(7, 'delete', message('Operation')),
    field(8, 'options', message('Operation')),
    field(9, 'head', message('Operation')),
    field(10, 'patch', message('Operation')),
    field(11, 'trace', message('Operation')),
    field(12, 'servers', messages('Server')),
    field(13, 'parameters', { of: 'orReference', type: 'Parameter', repeated: true }),
    extensions(14),
  ],
  Operation: [
    field(1, 'tags', strings),
    field(2, 'summary', string),
    field(3, 'description', string),
    field(4, 'externalDocs', message('ExternalDocs')),
    field(5, 'operationId', string),
    field(6, 'parameters', { of: 'orReference', type: 'Parameter', repeated: true }),
    field(7, 'requestBody', orReference('RequestBody')),
    field(8, 'responses', message('Responses')),
    field(10, 'deprecated', bool),
    field(11, 'security', messages('SecurityRequirement')),
    field(12, 'servers', messages('Server')),
    extensions(13),
  ],
  Parameter: [
    field(1, 'name', string),
    field(2, 'in', string),
    field(3, 'description', string),
    field(4, 'required', bool),
    field(5, 'deprecated', bool),
    field(6, 'allowEmptyValue', bool),
    field(7, 'style', string),
    field(8, 'explode', bool),
    field(9, 'allowReserved', bool),
    field(10, 'schema', orReference('Schema')),
    field(11, 'example', any),
    field(13, 'content', message('MediaTypes')),
    extensions(14),
  ],
  RequestBody: [
    field(1, 'description', string),
    field(2, 'content', message('MediaTypes')),
    field(3, 'required', bool),
    extensions(4),
  ],
  MediaTypes: [{ number: 1, member: '', kind: map('MediaType') }],
  MediaType: [field(1, 'schema', orReference('Schema')), field(2, 'example', any), extensions(5)],
  Responses: [
    field(1, 'default', orReference('Response')),
    { number: 2, member: '', kind: map('ResponseOrReference', /^([0-9X]{3})$/) },
    extensions(3),
  ],
  Response: [field(1, 'description', string), field(3, 'content', message('MediaTypes')), extensions(5)],
  Components: [
    field(1, 'schemas', message('SchemasOrReferences')),
    field(2, 'responses', message('ResponsesOrReferences')),
    field(3, 'parameters', message('ParametersOrReferences')),
    field(5, 'requestBodies', message('RequestBodiesOrReferences')),
    field(7, 'securitySchemes', message('SecuritySchemesOrReferences')),
    extensions(10),
  ],
  SchemasOrReferences: [{ number: 1, member: '', kind: map('SchemaOrReference') }],
  ResponsesOrReferences: [{ number: 1, member: '', kind: map('ResponseOrReference') }],
  ParametersOrReferences: [{ number: 1, member: '', kind: map('ParameterOrReference') }],
  RequestBodiesOrReferences: [{ number: 1, member: '', kind: map('RequestBodyOrReference') }],
  SecuritySchemesOrReferences: [{ number: 1, member: '', kind: map('SecuritySchemeOrReference') }],
  SecurityScheme: [
    field(1, 'type', string),
    field(2, 'description', string),
    field(3, 'name', string),
    field(4, 'in', string),
    field(5, 'scheme', string),
    field(6, 'bearerFormat', string),
    field(8, 'openIdConnectUrl', string),
    extensions(9),
  ],
  SecurityRequirement: [{ number: 1, member: '', kind: map('StringArray') }],
  StringArray: [field(1, '', strings)],
  Reference: [field(1, '$ref', string), field(2, 'summary', string), field(3, 'description', string)],
  Schema: [
    field(1, 'nullable', bool),
    field(3, 'readOnly', bool),
    field(4, 'writeOnly', bool),
    field(6, 'externalDocs', message('ExternalDocs')),
    field(7, 'example', any),
    field(8, 'deprecated', bool),
    field(9, 'title', string),
    field(10, 'multipleOf', double),
    field(11, 'maximum', double),
    field(12, 'exclusiveMaximum', bool),
    field(13, 'minimum', double),
    field(14, 'exclusiveMinimum', bool),
    field(15, 'maxLength', int64),
    field(16, 'minLength', int64),
    field(17, 'pattern', string),
    field(18, 'maxItems', int64),
    field(19, 'minItems', int64),
    field(20, 'uniqueItems', bool),
    field(21, 'maxProperties', int64),
    field(22, 'minProperties', int64),
    field(23, 'required', strings),
    field(24, 'enum', { of: 'anys' }),
    field(25, 'type', string),
    field(26, 'allOf', { of: 'orReference', type: 'Schema', repeated: true }),
    field(27, 'oneOf', { of: 'orReference', type: 'Schema', repeated: true }),
    field(28, 'anyOf', { of: 'orReference', type: 'Schema', repeated: true }),
    field(29, 'not', message('Schema')),
    field(30, 'items', { of: 'items' }),
    field(31, 'properties', message('Properties')),
    field(32, 'additionalProperties', { of: 'additionalProperties' }),
    field(33, 'default', { of: 'default' }),
    field(34, 'description', string),
    field(35, 'format', string),
    extensions(36),
  ],
  Properties: [{ number: 1, member: '', kind: map('SchemaOrReference') }],
};

function keyOf(number: number, wireType: number): number {
  return ((number << 3) | wireType) >>> 0;
}

function isMap(value: Json | undefined): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** gnostic's reading of a scalar as a string: text, an integer's digits, or "" for null. */
function stringOf(value: Json): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' && Number.isInteger(value)) return JSON.stringify(value);
  return undefined;
}

function writeNested(writer: Writer, number: number, write: () => void): void {
  writer.uint32(keyOf(number, WIRE_BYTES)).fork();
  write();
  writer.ldelim();
}

function writeAny(writer: Writer, number: number, value: Json): void {
  writeNested(writer, number, () => writer.uint32(keyOf(2, WIRE_BYTES)).string(yamlV3Text(value)));
}

/** DefaultType's oneof: set (and so written even at its zero value) for a number, boolean or string. */
function writeDefault(writer: Writer, value: Json): void {
  if (typeof value === 'number') writer.uint32(keyOf(1, WIRE_FIXED64)).double(value);
  else if (typeof value === 'boolean') writer.uint32(keyOf(2, WIRE_VARINT)).bool(value);
  else if (typeof value === 'string') writer.uint32(keyOf(3, WIRE_BYTES)).string(value);
}

function writeOrReference(writer: Writer, number: number, type: string, value: Json): void {
  writeNested(writer, number, () => {
    if (isMap(value) && '$ref' in value) writeNested(writer, 2, () => writeMessage(writer, 'Reference', value));
    else writeNested(writer, 1, () => writeMessage(writer, type, value));
  });
}

/** A map entry's value: `Named<type>` holds the value's message, `NamedAny` an Any, `Named...OrReference` the choice. */
function writeEntryValue(writer: Writer, type: string, value: Json): void {
  if (type === 'Any') writeAny(writer, 2, value);
  else if (type.endsWith('OrReference')) writeOrReference(writer, 2, type.slice(0, -'OrReference'.length), value);
  else writeNested(writer, 2, () => writeMessage(writer, type, value));
}

function writeField(writer: Writer, field: Field, source: JsonMap): void {
  const { kind, number } = field;
  if (kind.of === 'map') {
    for (const [name, value] of Object.entries(source)) {
      if (kind.names !== undefined && !kind.names.test(name)) continue;
      writeNested(writer, number, () => {
        writer.uint32(keyOf(1, WIRE_BYTES)).string(name);
        writeEntryValue(writer, kind.type, value);
      });
    }
    return;
  }
  const value = source[field.member];
  if (value === undefined) return;
  switch (kind.of) {
    case 'string': {
      const text = stringOf(value);
      if (text) writer.uint32(keyOf(number, WIRE_BYTES)).string(text);
      return;
    }
    case 'bool':
      if (value === true) writer.uint32(keyOf(number, WIRE_VARINT)).bool(true);
      return;
    case 'double':
      if (typeof value === 'number' && !Object.is(value, 0)) writer.uint32(keyOf(number, WIRE_FIXED64)).double(value);
      return;
    case 'int64':
      if (typeof value === 'number' && Number.isInteger(value) && value !== 0)
        writer.uint32(keyOf(number, WIRE_VARINT)).int64(value);
      return;
    case 'strings':
      if (Array.isArray(value))
        for (const item of value) {
          const text = stringOf(item);
          if (text !== undefined) writer.uint32(keyOf(number, WIRE_BYTES)).string(text);
        }
      return;
    case 'any':
      writeAny(writer, number, value);
      return;
    case 'anys':
      if (Array.isArray(value)) for (const item of value) writeAny(writer, number, item);
      return;
    case 'default':
      writeNested(writer, number, () => writeDefault(writer, value));
      return;
    case 'message':
      if (kind.repeated) {
        if (Array.isArray(value))
          for (const item of value) writeNested(writer, number, () => writeMessage(writer, kind.type, item));
      } else writeNested(writer, number, () => writeMessage(writer, kind.type, value));
      return;
    case 'orReference':
      if (!kind.repeated) writeOrReference(writer, number, kind.type, value);
      else if (Array.isArray(value)) for (const item of value) writeOrReference(writer, number, kind.type, item);
      return;
    case 'additionalProperties':
      writeNested(writer, number, () => {
        if (typeof value === 'boolean') writer.uint32(keyOf(2, WIRE_VARINT)).bool(value);
        else writeOrReference(writer, 1, 'Schema', value);
      });
      return;
    case 'items':
      // gnostic reads only a single schema here; an array of them gives one empty schema.
      writeNested(writer, number, () => writeOrReference(writer, 1, 'Schema', isMap(value) ? value : {}));
      return;
  }
}

function writeMessage(writer: Writer, type: string, value: Json): void {
  const fields = MESSAGES[type];
  // StringArray is the one message read from a JSON array rather than an object.
  const source: JsonMap = Array.isArray(value) ? { '': value } : isMap(value) ? value : {};
  for (const field of fields) writeField(writer, field, source);
}

/** The protobuf form of an OpenAPI v3 document given as JSON. */
export function encodeOpenAPIV3Protobuf(document: object): Buffer {
  const writer = Writer.create();
  writeMessage(writer, 'Document', document as JsonMap);
  return Buffer.from(writer.finish());
}
