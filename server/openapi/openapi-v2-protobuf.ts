/**
 * `/openapi/v2` in protobuf, the form kubectl (explain, client-side validation) and client-go's
 * `OpenAPISchema()` ask for: the JSON Swagger document turned into gnostic's `openapi.v2.Document`
 * the way gnostic reads a JSON document (its `ParseDocument`), then written with protobufjs from
 * the message schema in `openapi-v2-schema.ts`. Extension values, defaults, enums and examples
 * are gnostic `Any`s carrying the value as the YAML text yaml.v3 writes (`yaml-v3-text.ts`, as
 * in the v3 documents), which is how kubectl reads `x-kubernetes-group-version-kind` back.
 */
import type { Type } from 'protobufjs';
import { yamlV3Text } from '../codec/yaml-v3-text';

/** The Content-Type the reference answers with (it also accepts the older `@v1.0` spelling). */
export const OPENAPI_V2_PROTOBUF_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
export const OPENAPI_V2_PROTOBUF_SUBTYPES = [
  'com.github.proto-openapi.spec.v2.v1.0+protobuf',
  'com.github.proto-openapi.spec.v2@v1.0+protobuf',
];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };
/** A message as protobufjs's `fromObject` takes it, with the .proto's own field names. */
type Message = { [field: string]: unknown };

let documentType: Type | undefined;

/**
 * The message type, made on the first protobuf `/openapi/v2` with protobufjs's full build (its
 * .proto parser) and the schema text, both loaded then: only kubectl explain and client-side
 * validation ask for this form, and an idle server keeps neither (about 0.4 MiB of heap).
 */
export function openAPIV2DocumentType(): Type {
  if (documentType === undefined) {
    const { common, parse, Root } = require('protobufjs') as typeof import('protobufjs');
    const { OPENAPI_V2_PROTO } = require('./openapi-v2-schema') as typeof import('./openapi-v2-schema');
    const root = new Root();
    const any = common.get('google/protobuf/any.proto');
    if (any?.nested) root.addJSON(any.nested);
    parse(OPENAPI_V2_PROTO, root, { keepCase: true });
    root.resolveAll();
    documentType = root.lookupType('openapi.v2.Document');
  }
  return documentType;
}

/** The protobuf form of a Swagger 2.0 document given as JSON. */
export function encodeOpenAPIV2Protobuf(document: object): Buffer {
  const type = openAPIV2DocumentType();
  return Buffer.from(type.encode(type.fromObject(documentMessage(document as JsonMap))).finish());
}

// ---------------------------------------------------------------------------------------------
// JSON → gnostic messages, field by field as gnostic's compiler reads them

function isMap(value: Json | undefined): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function anyOf(value: Json): Message {
  return { yaml: yamlV3Text(value) };
}

function vendorExtensions(source: JsonMap): Message[] {
  return Object.entries(source)
    .filter(([key]) => key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyOf(value) }));
}

/**
 * Copies the listed JSON members that are present into proto fields (camelCase → snake_case).
 * A zero (0, false, "") is left out: Go writes no proto3 scalar at its zero value, where
 * protobufjs would write one it is given.
 */
function scalars(source: JsonMap, names: readonly string[]): Message {
  const message: Message = {};
  for (const name of names) {
    const value = source[name];
    if (value !== undefined && value !== null && value !== 0 && value !== false && value !== '')
      message[name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = value;
  }
  return message;
}

function named<T>(source: Json | undefined, convert: (value: Json) => T): { name: string; value: T }[] {
  if (!isMap(source)) return [];
  return Object.entries(source)
    .filter(([key]) => !key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: convert(value) }));
}

function documentMessage(document: JsonMap): Message {
  const message: Message = scalars(document, ['swagger', 'host', 'basePath', 'schemes', 'consumes', 'produces']);
  if (isMap(document.info)) message.info = infoMessage(document.info);
  if (isMap(document.paths))
    message.paths = {
      path: named(document.paths, pathItemMessage),
      vendor_extension: vendorExtensions(document.paths),
    };
  if (isMap(document.definitions))
    message.definitions = { additional_properties: named(document.definitions, schemaMessage) };
  if (isMap(document.parameters))
    message.parameters = { additional_properties: named(document.parameters, parameterMessage) };
  if (isMap(document.responses))
    message.responses = { additional_properties: named(document.responses, responseMessage) };
  if (Array.isArray(document.security)) message.security = document.security.map(securityRequirementMessage);
  if (isMap(document.securityDefinitions)) {
    message.security_definitions = {
      additional_properties: named(document.securityDefinitions, securityDefinitionMessage),
    };
  }
  if (Array.isArray(document.tags)) message.tags = document.tags.filter(isMap).map(tagMessage);
  if (isMap(document.externalDocs)) message.external_docs = externalDocsMessage(document.externalDocs);
  message.vendor_extension = vendorExtensions(document);
  return message;
}

function infoMessage(info: JsonMap): Message {
  const message = scalars(info, ['title', 'version', 'description', 'termsOfService']);
  if (isMap(info.contact))
    message.contact = {
      ...scalars(info.contact, ['name', 'url', 'email']),
      vendor_extension: vendorExtensions(info.contact),
    };
  if (isMap(info.license))
    message.license = { ...scalars(info.license, ['name', 'url']), vendor_extension: vendorExtensions(info.license) };
  return { ...message, vendor_extension: vendorExtensions(info) };
}

function externalDocsMessage(docs: JsonMap): Message {
  return { ...scalars(docs, ['description', 'url']), vendor_extension: vendorExtensions(docs) };
}

function tagMessage(tag: JsonMap): Message {
  const message = scalars(tag, ['name', 'description']);
  if (isMap(tag.externalDocs)) message.external_docs = externalDocsMessage(tag.externalDocs);
  return { ...message, vendor_extension: vendorExtensions(tag) };
}

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function pathItemMessage(item: Json): Message {
  if (!isMap(item)) return {};
  const message: Message = {};
  if (typeof item.$ref === 'string') message._ref = item.$ref;
  for (const method of OPERATION_METHODS) {
    const operation = item[method];
    if (isMap(operation)) message[method] = operationMessage(operation);
  }
  if (Array.isArray(item.parameters)) message.parameters = item.parameters.map(parametersItemMessage);
  message.vendor_extension = vendorExtensions(item);
  return message;
}

function operationMessage(operation: JsonMap): Message {
  const message = scalars(operation, [
    'tags',
    'summary',
    'description',
    'operationId',
    'produces',
    'consumes',
    'schemes',
    'deprecated',
  ]);
  if (isMap(operation.externalDocs)) message.external_docs = externalDocsMessage(operation.externalDocs);
  if (Array.isArray(operation.parameters)) message.parameters = operation.parameters.map(parametersItemMessage);
  if (isMap(operation.responses)) {
    message.responses = {
      response_code: named(operation.responses, responseValueMessage),
      vendor_extension: vendorExtensions(operation.responses),
    };
  }
  if (Array.isArray(operation.security)) message.security = operation.security.map(securityRequirementMessage);
  message.vendor_extension = vendorExtensions(operation);
  return message;
}

function parametersItemMessage(item: Json): Message {
  if (isMap(item) && typeof item.$ref === 'string') return { json_reference: { _ref: item.$ref } };
  return { parameter: parameterMessage(item) };
}

/** The validation keywords a schema shares with every non-body parameter, header and items object. */
const VALIDATION_KEYWORDS = [
  'multipleOf',
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
];

const PRIMITIVE_KEYWORDS = ['type', 'format', 'collectionFormat', ...VALIDATION_KEYWORDS];

function primitiveMessage(source: JsonMap): Message {
  const message = scalars(source, PRIMITIVE_KEYWORDS);
  if (isMap(source.items)) message.items = primitiveMessage(source.items);
  if (source.default !== undefined) message.default = anyOf(source.default);
  if (Array.isArray(source.enum)) message.enum = source.enum.map(anyOf);
  message.vendor_extension = vendorExtensions(source);
  return message;
}

const NON_BODY_FIELDS: Readonly<Record<string, string>> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

function parameterMessage(parameter: Json): Message {
  if (!isMap(parameter)) return {};
  if (parameter.in === 'body') {
    const message = scalars(parameter, ['description', 'name', 'in', 'required']);
    if (isMap(parameter.schema)) message.schema = schemaMessage(parameter.schema);
    return { body_parameter: { ...message, vendor_extension: vendorExtensions(parameter) } };
  }
  const field = NON_BODY_FIELDS[String(parameter.in)];
  if (field === undefined) return {};
  const subSchema = {
    ...primitiveMessage(parameter),
    ...scalars(parameter, ['required', 'in', 'description', 'name', 'allowEmptyValue']),
  };
  return { non_body_parameter: { [field]: subSchema } };
}

function responseValueMessage(value: Json): Message {
  if (isMap(value) && typeof value.$ref === 'string') return { json_reference: { _ref: value.$ref } };
  return { response: responseMessage(value) };
}

function responseMessage(response: Json): Message {
  if (!isMap(response)) return {};
  const message = scalars(response, ['description']);
  if (isMap(response.schema)) {
    message.schema =
      response.schema.type === 'file'
        ? { file_schema: fileSchemaMessage(response.schema) }
        : { schema: schemaMessage(response.schema) };
  }
  if (isMap(response.headers))
    message.headers = {
      additional_properties: named(response.headers, (header) =>
        isMap(header) ? { ...primitiveMessage(header), ...scalars(header, ['description']) } : {},
      ),
    };
  if (isMap(response.examples))
    message.examples = {
      additional_properties: Object.entries(response.examples).map(([name, value]) => ({ name, value: anyOf(value) })),
    };
  return { ...message, vendor_extension: vendorExtensions(response) };
}

function fileSchemaMessage(schema: JsonMap): Message {
  const message = scalars(schema, ['format', 'title', 'description', 'required', 'type', 'readOnly']);
  if (schema.default !== undefined) message.default = anyOf(schema.default);
  if (schema.example !== undefined) message.example = anyOf(schema.example);
  if (isMap(schema.externalDocs)) message.external_docs = externalDocsMessage(schema.externalDocs);
  return { ...message, vendor_extension: vendorExtensions(schema) };
}

function schemaMessage(schema: Json): Message {
  if (!isMap(schema)) return {};
  const message = scalars(schema, [
    'format',
    'title',
    'description',
    ...VALIDATION_KEYWORDS,
    'maxProperties',
    'minProperties',
    'required',
    'discriminator',
    'readOnly',
  ]);
  if (typeof schema.$ref === 'string') message._ref = schema.$ref;
  if (schema.default !== undefined) message.default = anyOf(schema.default);
  if (Array.isArray(schema.enum)) message.enum = schema.enum.map(anyOf);
  if (typeof schema.additionalProperties === 'boolean')
    message.additional_properties = { boolean: schema.additionalProperties };
  else if (isMap(schema.additionalProperties))
    message.additional_properties = { schema: schemaMessage(schema.additionalProperties) };
  if (typeof schema.type === 'string') message.type = { value: [schema.type] };
  else if (Array.isArray(schema.type)) message.type = { value: schema.type.map(String) };
  if (isMap(schema.items)) message.items = { schema: [schemaMessage(schema.items)] };
  else if (Array.isArray(schema.items)) message.items = { schema: schema.items.map(schemaMessage) };
  if (Array.isArray(schema.allOf)) message.all_of = schema.allOf.map(schemaMessage);
  if (isMap(schema.properties))
    message.properties = {
      additional_properties: Object.entries(schema.properties).map(([name, value]) => ({
        name,
        value: schemaMessage(value),
      })),
    };
  if (isMap(schema.xml))
    message.xml = {
      ...scalars(schema.xml, ['name', 'namespace', 'prefix', 'attribute', 'wrapped']),
      vendor_extension: vendorExtensions(schema.xml),
    };
  if (isMap(schema.externalDocs)) message.external_docs = externalDocsMessage(schema.externalDocs);
  if (schema.example !== undefined) message.example = anyOf(schema.example);
  message.vendor_extension = vendorExtensions(schema);
  return message;
}

function securityRequirementMessage(requirement: Json): Message {
  if (!isMap(requirement)) return {};
  return {
    additional_properties: Object.entries(requirement).map(([name, scopes]) => ({
      name,
      value: { value: Array.isArray(scopes) ? scopes.map(String) : [] },
    })),
  };
}

const SECURITY_FIELDS: Readonly<Record<string, string>> = {
  basic: 'basic_authentication_security',
  apiKey: 'api_key_security',
};

function securityDefinitionMessage(definition: Json): Message {
  if (!isMap(definition)) return {};
  const field = SECURITY_FIELDS[String(definition.type)];
  if (field === undefined) return {};
  return {
    [field]: {
      ...scalars(definition, ['type', 'name', 'in', 'description']),
      vendor_extension: vendorExtensions(definition),
    },
  };
}
