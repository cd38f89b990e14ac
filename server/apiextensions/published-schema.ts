/**
 * A CRD version's schema as the reference publishes it in its OpenAPI documents (and types
 * server-side apply with): the kind's definition and its list's.
 *
 * The kind's (OpenAPI v3 form): the version's schema with only the keywords of a structural
 * schema (no `example` or `externalDocs`), int-or-string nodes unfolded to `anyOf: [integer,
 * string]`, embedded resources given apiVersion, kind and metadata (and made to require
 * apiVersion and kind), and at the root apiVersion, kind and metadata with their descriptions;
 * the group-version-kind and the selectable fields as extensions.
 *
 * The OpenAPI v2 document differs, for kubectl's sake (it reads v2 schemas strictly): a root
 * that preserves unknown fields is published as a bare `type: object`; elsewhere junctors
 * (allOf, anyOf, oneOf, not) and defaults are dropped, a nullable node loses its type, items
 * and properties (and is no longer required), a node that preserves unknown fields loses its
 * items and properties, and its type when an object; a list without items loses its type. The
 * definition carries that form under OPENAPI_V2_FORM (component-schemas.ts renders it).
 */
import type { SchemaNode } from '../validation/decode';
import { OPENAPI_V2_FORM } from '../openapi/component-schemas';
import type { CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps } from './crd-types';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
const CONVENTIONS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';

/** TypeMeta's field descriptions, as every kind's definition has them. */
const TYPE_META_PROPERTIES = {
  apiVersion: {
    description: `APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: ${CONVENTIONS}#resources`,
    type: 'string',
  },
  kind: {
    description: `Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: ${CONVENTIONS}#types-kinds`,
    type: 'string',
  },
};

const METADATA_PROPERTY = {
  description: `Standard object's metadata. More info: ${CONVENTIONS}#metadata`,
  $ref: `#/definitions/${OBJECT_META}`,
};

/** What an embedded resource is given (the reference's own, lower-case, descriptions). */
const EMBEDDED_PROPERTIES = {
  apiVersion: {
    description: `apiVersion defines the versioned schema of this representation of an object. More info: ${CONVENTIONS}#resources`,
    type: 'string',
  },
  kind: {
    description: `kind is a string value representing the type of this object. In CamelCase. More info: ${CONVENTIONS}#types-kinds`,
    type: 'string',
  },
  metadata: METADATA_PROPERTY,
};

type Node = Record<string, unknown>;

/** Applies `change` to every schema node, parent before children (properties, items, additionalProperties). */
function eachNode(node: Node, change: (node: Node) => void): void {
  change(node);
  const properties = node.properties as Record<string, Node> | undefined;
  for (const property of Object.values(properties ?? {})) eachNode(property, change);
  if (node.items !== undefined && typeof node.items === 'object') eachNode(node.items as Node, change);
  if (node.additionalProperties !== undefined && typeof node.additionalProperties === 'object')
    eachNode(node.additionalProperties as Node, change);
}

/**
 * The keywords a structural schema holds (the rest, such as `example` and `externalDocs`, are
 * not published), and those of them that are left out when false.
 */
const STRUCTURAL_KEYWORDS = new Set([
  'type',
  'nullable',
  'description',
  'title',
  'default',
  'format',
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
  'allOf',
  'oneOf',
  'anyOf',
  'not',
  'properties',
  'items',
  'additionalProperties',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);
const OMITTED_WHEN_FALSE = new Set([
  'nullable',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
]);

/** A rule as published: its empty optional fields left out. */
function publishedRule(rule: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(rule).filter(
      ([key, value]) => key === 'rule' || (value !== '' && value !== null && value !== undefined),
    ),
  );
}

/** A structural copy as plain nodes (a CRD's `items` may be a one-element list), junctor parts included. */
function copyOf(schema: JSONSchemaProps): Node {
  const copy = (value: unknown): Node => {
    const node: Node = {};
    for (const [key, child] of Object.entries(value as Node)) {
      if (!STRUCTURAL_KEYWORDS.has(key) || (OMITTED_WHEN_FALSE.has(key) && child === false)) continue;
      if (key === 'properties')
        node[key] = Object.fromEntries(Object.entries(child as Node).map(([name, property]) => [name, copy(property)]));
      else if (key === 'items') node[key] = copy(Array.isArray(child) ? child[0] : child);
      else if (key === 'additionalProperties' || key === 'not')
        node[key] = typeof child === 'object' ? copy(child) : child;
      else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') node[key] = (child as unknown[]).map(copy);
      else if (key === 'x-kubernetes-validations')
        node[key] = (child as Array<Record<string, unknown>>).map(publishedRule);
      else node[key] = JSON.parse(JSON.stringify(child)) as unknown;
    }
    return node;
  };
  return copy(schema);
}

const INT_OR_STRING_ANY_OF = [{ type: 'integer' }, { type: 'string' }];

function isIntOrStringAnyOf(anyOf: unknown): boolean {
  return (
    Array.isArray(anyOf) &&
    anyOf.length === 2 &&
    (anyOf as Node[]).every(
      (part, index) => Object.keys(part).length === 1 && part.type === INT_OR_STRING_ANY_OF[index].type,
    )
  );
}

/** int-or-string nodes say so with `anyOf`, as the reference unfolds them. */
function unfoldIntOrString(node: Node): void {
  if (node['x-kubernetes-int-or-string'] !== true) return;
  const allOf = node.allOf as Node[] | undefined;
  if (isIntOrStringAnyOf(node.anyOf) || (allOf !== undefined && isIntOrStringAnyOf(allOf[0]?.anyOf))) return;
  if (node.anyOf === undefined) node.anyOf = INT_OR_STRING_ANY_OF.map((part) => ({ ...part }));
  else node.allOf = [{ anyOf: INT_OR_STRING_ANY_OF.map((part) => ({ ...part })) }, ...(allOf ?? [])];
}

function addEmbeddedProperties(node: Node, v2: boolean): void {
  // In v2, kubectl would refuse unknown fields beside them.
  if (v2 && node['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (node['x-kubernetes-embedded-resource'] !== true) return;
  node.properties = { ...((node.properties as Node | undefined) ?? {}), ...EMBEDDED_PROPERTIES };
  const required = (node.required as string[] | undefined) ?? [];
  node.required = [...required, ...['kind', 'apiVersion'].filter((field) => !required.includes(field))];
}

/** The OpenAPI v2 simplifications of one node (see the module comment). */
function simplifyForV2(node: Node): void {
  for (const junctor of ['allOf', 'anyOf', 'oneOf', 'not']) delete node[junctor];
  delete node.default;
  const properties = node.properties as Record<string, Node> | undefined;
  if (Array.isArray(node.required)) {
    const required = (node.required as string[]).filter((field) => properties?.[field]?.nullable !== true);
    const additional = node.additionalProperties as Node | undefined;
    if (typeof additional === 'object' && additional.nullable === true) delete node.required;
    else if (required.length === 0) delete node.required;
    else node.required = required;
  }
  if (node.nullable === true) {
    delete node.type;
    delete node.nullable;
    delete node.items;
    delete node.properties;
  }
  if (node['x-kubernetes-preserve-unknown-fields'] === true) {
    delete node.items;
    delete node.properties;
    if (node.type === 'object') delete node.type;
  }
  if (node.items === undefined && node.type === 'array') delete node.type;
}

function kindExtensions(crd: CustomResourceDefinition, version: CustomResourceDefinitionVersion, kind: string): Node {
  const fields = version.selectableFields ?? [];
  return {
    'x-kubernetes-group-version-kind': [{ group: crd.spec.group, kind, version: version.name }],
    ...(fields.length > 0
      ? { 'x-kubernetes-selectable-fields': fields.map(({ jsonPath }) => ({ fieldPath: jsonPath.replace(/^\./, '') })) }
      : {}),
  };
}

function withRootProperties(node: Node): Node {
  return {
    ...node,
    type: 'object',
    properties: {
      ...((node.properties as Node | undefined) ?? {}),
      ...TYPE_META_PROPERTIES,
      metadata: METADATA_PROPERTY,
    },
  };
}

/** The kind's definition: its v3 form, carrying its v2 form. */
export function publishedKindSchema(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
): SchemaNode {
  const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const extensions = kindExtensions(crd, version, crd.spec.names.kind);
  const v3 = copyOf(schema);
  eachNode(v3, (node) => {
    unfoldIntOrString(node);
    addEmbeddedProperties(node, false);
  });
  let v2: Node;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) v2 = { type: 'object' };
  else {
    v2 = copyOf(schema);
    eachNode(v2, simplifyForV2);
    eachNode(v2, (node) => addEmbeddedProperties(node, true));
    v2 = withRootProperties(v2);
  }
  return { ...withRootProperties(v3), ...extensions, [OPENAPI_V2_FORM]: { ...v2, ...extensions } } as SchemaNode;
}

/** The list kind's definition (the same in v2 and v3). */
export function publishedListSchema(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
  itemDefinition: string,
): SchemaNode {
  const { kind, plural } = crd.spec.names;
  const listKind = crd.spec.names.listKind ?? `${kind}List`;
  return {
    description: `${listKind} is a list of ${kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      ...TYPE_META_PROPERTIES,
      items: {
        description: `List of ${plural}. More info: ${CONVENTIONS}`,
        type: 'array',
        items: { $ref: `#/definitions/${itemDefinition}` },
      },
      metadata: {
        description: `Standard list metadata. More info: ${CONVENTIONS}#types-kinds`,
        $ref: `#/definitions/${LIST_META}`,
      },
    },
    ...kindExtensions(crd, version, listKind),
  } as SchemaNode;
}
