/**
 * The OpenAPI documents: one v3 document per served group-version (`/openapi/v3/apis/<g>/<v>`),
 * the v3 root listing them by content hash, and one v2 (Swagger) document for the whole API
 * (`/openapi/v2`). All pure functions of the served groups and the schema definitions.
 */
import type { GroupVersion, GroupVersionKind } from '../../api/identity';
import { REGISTERED_GROUP_VERSIONS } from '../config/registered-group-versions';
import type { ServedGroup, ServedGroupVersion } from '../discovery/served-groups';
import { definitionClosure, refTo, renderSchemas, type Definitions, type OpenAPIFlavour } from './component-schemas';
import { nonResourceDocuments } from './non-resource-paths';
import { shareParameters } from './shared-parameters';
import {
  groupVersionPaths,
  isCustomResource,
  listDefinitionOf,
  referencedDefinitions,
  type ApiOperation,
  type ApiPath,
  type HttpMethod,
} from './operations';
import { parameterDescription, type ParameterSpec } from './parameters';

export interface DocumentInfo {
  readonly title: string;
  /** The emulated `major.minor` release, as the reference shows it. */
  readonly version: string;
}

const SECURITY_SCHEME = {
  BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' },
};
/** The same scheme in the field order of the reference's v2 type. */
const V2_SECURITY_SCHEME = {
  BearerToken: { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' },
};
const CUSTOM_RESOURCE_INFO: DocumentInfo = { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' };
const SECURITY = [{ BearerToken: [] as string[] }];

/** The key of a group-version in the v3 root: `api/v1`, `apis/apps/v1`. */
export function openAPIV3PathKey({ group, version }: { group: string; version: string }): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** `GET /openapi/v3`: each group-version's document URL, carrying the document's hash. */
export function openAPIV3Root(hashes: ReadonlyMap<string, string>): {
  paths: Record<string, { serverRelativeURL: string }>;
} {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const [key, hash] of [...hashes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

/** The OpenAPI 3.0 document of one group-version. */
export function openAPIV3Document(options: {
  groupVersion: ServedGroupVersion;
  definitions: Definitions;
  info: DocumentInfo;
}): object {
  const customResources = options.groupVersion.resources.every(isCustomResource);
  const paths = groupVersionPaths(options.groupVersion, options.definitions);
  const schemas = renderSchemas({
    definitions: options.definitions,
    names: definitionClosure(options.definitions, referencedDefinitions(paths)),
    flavour: 'v3',
    kinds: servedKinds([options.groupVersion], {
      groupVersions: schemeGroupVersions(customResources),
      definitions: options.definitions,
    }),
  });
  const pathItems = Object.fromEntries(paths.map((path) => [path.path, v3PathItem(path, options.definitions)]));
  // A group-version of custom resources alone is documented by the reference's CRD builder,
  // under its own title and without security schemes; only custom resources bring definitions.
  if (customResources) {
    return { openapi: '3.0.0', info: CUSTOM_RESOURCE_INFO, paths: pathItems, components: { schemas } };
  }
  return {
    openapi: '3.0.0',
    info: options.info,
    paths: pathItems,
    // The reference's v3 builder keeps the default security requirement out of the document.
    components: { schemas, securitySchemes: SECURITY_SCHEME },
  };
}

/** The OpenAPI 3.0 document of paths outside the group-versions (non-resource-paths.ts). */
export function openAPIV3NonResourceDocument(options: {
  paths: readonly ApiPath[];
  definitions: Definitions;
  info: DocumentInfo;
}): object {
  const names = definitionClosure(options.definitions, referencedDefinitions(options.paths));
  const schemas = renderSchemas({
    definitions: options.definitions,
    names,
    flavour: 'v3',
    kinds: servedKinds([], { groupVersions: schemeGroupVersions(false), definitions: options.definitions }),
  });
  return {
    openapi: '3.0.0',
    info: options.info,
    paths: Object.fromEntries(options.paths.map((path) => [path.path, v3PathItem(path, options.definitions)])),
    components: { ...(names.length > 0 ? { schemas } : {}), securitySchemes: SECURITY_SCHEME },
  };
}

/**
 * The Swagger 2.0 document of every served group-version and of the paths outside them, its
 * parameters shared as the reference's v2 builder shares them (shared-parameters.ts).
 */
export function openAPIV2Document(options: {
  groups: readonly ServedGroup[];
  definitions: Definitions;
  info: DocumentInfo;
}): object {
  const groupVersions = options.groups.flatMap((group) => group.versions);
  const paths = [
    ...groupVersions.flatMap((groupVersion) => groupVersionPaths(groupVersion, options.definitions)),
    ...[...nonResourceDocuments(options.groups).values()].flat(),
  ].sort((a, b) => compareStrings(a.path, b.path));
  const definitions = renderSchemas({
    definitions: options.definitions,
    names: definitionClosure(options.definitions, referencedDefinitions(paths)),
    flavour: 'v2',
    kinds: servedKinds(groupVersions, { groupVersions: schemeGroupVersions(false), definitions: options.definitions }),
  });
  const pathItems = Object.fromEntries(paths.map((path) => [path.path, v2PathItem(path, options.definitions)]));
  const parameters = shareParameters(pathItems);
  return {
    swagger: '2.0',
    info: options.info,
    paths: pathItems,
    definitions,
    parameters,
    securityDefinitions: V2_SECURITY_SCHEME,
    security: SECURITY,
  };
}

/**
 * Marks the meta kinds every group-version of a scheme registers (the options kinds and
 * WatchEvent; tools/schemagen): the reference names each group-version of its scheme on them.
 */
const EVERY_GROUP_VERSION = 'x-capstan-every-group-version';
/**
 * The reference's CRD builder names kinds through client-go's scheme, which lacks these groups
 * of the server's own.
 */
const GROUPS_OUTSIDE_CLIENT_SCHEME = new Set([
  'admission.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'imagepolicy.k8s.io',
]);

/** The group-versions of the scheme the reference names a document's kinds through, sorted. */
function schemeGroupVersions(customResources: boolean): GroupVersion[] {
  return REGISTERED_GROUP_VERSIONS.filter(({ group }) => !customResources || !GROUPS_OUTSIDE_CLIENT_SCHEME.has(group))
    .map(({ group, version }) => ({ group, version }))
    .sort((a, b) => compareStrings(a.group, b.group) || compareStrings(a.version, b.version));
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Definition name → the kinds it serves as: every resource (and its list) in these
 * group-versions, and the meta kinds in each group-version of the scheme.
 */
function servedKinds(
  groupVersions: readonly ServedGroupVersion[],
  scheme: { groupVersions: readonly GroupVersion[]; definitions: Definitions },
): Map<string, GroupVersionKind[]> {
  const kinds = new Map<string, GroupVersionKind[]>();
  const add = (definition: string, kind: GroupVersionKind) =>
    kinds.set(definition, [...(kinds.get(definition) ?? []), kind]);
  for (const [name, definition] of Object.entries(scheme.definitions)) {
    if ((definition as Record<string, unknown>)[EVERY_GROUP_VERSION] !== true) continue;
    const kind = name.slice(name.lastIndexOf('.') + 1);
    for (const { group, version } of scheme.groupVersions) add(name, { group, version, kind });
  }
  for (const groupVersion of groupVersions) {
    for (const resource of groupVersion.resources) {
      const { group, version } = groupVersion;
      add(resource.served.definition, { group, version, kind: resource.type.kind });
      if (!resource.type.virtual) add(listDefinitionOf(resource), { group, version, kind: resource.type.listKind });
    }
  }
  return kinds;
}

/** A path item's members in the reference's order: the operations by method, then the shared parameters. */
const METHOD_ORDER: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/**
 * A path's parameters as the reference's builders (v2 and v3) place them: one that every
 * operation of the path takes is declared once on the path, the rest stay on their operations;
 * each list sorted by name, then location.
 */
function placedParameters(path: ApiPath): {
  shared: ParameterSpec[];
  operations: Array<{ operation: ApiOperation; own: ParameterSpec[] }>;
} {
  const parametersOf = (operation: ApiOperation) => [...path.parameters, ...operation.parameters];
  const key = (parameter: ParameterSpec) => `${parameter.in} ${parameter.name}`;
  const shared = new Map(parametersOf(path.operations[0]).map((parameter) => [key(parameter), parameter]));
  for (const operation of path.operations.slice(1)) {
    const keys = new Set(parametersOf(operation).map(key));
    for (const name of [...shared.keys()]) if (!keys.has(name)) shared.delete(name);
  }
  const operations = METHOD_ORDER.flatMap((method) => {
    const operation = path.operations.find((candidate) => candidate.method === method);
    if (operation === undefined) return [];
    const own = parametersOf(operation).filter((parameter) => !shared.has(key(parameter)));
    return [{ operation, own: sortedParameters(own) }];
  });
  return { shared: sortedParameters([...shared.values()]), operations };
}

function v3PathItem(path: ApiPath, definitions: Definitions): object {
  const { shared, operations } = placedParameters(path);
  const item: Record<string, unknown> = {};
  for (const { operation, own } of operations)
    item[operation.method] = v3Operation(
      operation,
      own.map((parameter) => v3Parameter(parameter, definitions)),
    );
  if (shared.length > 0) item.parameters = shared.map((parameter) => v3Parameter(parameter, definitions));
  return item;
}

/** By name, then by location, as the reference sorts them. */
function sortedParameters<Parameter extends { readonly name: string; readonly in: string }>(
  parameters: readonly Parameter[],
): Parameter[] {
  return [...parameters].sort((a, b) => compareStrings(a.name, b.name) || compareStrings(a.in, b.in));
}

function v3Operation(operation: ApiOperation, parameters: readonly object[]): object {
  // A body of bytes has no definition: the reference types it as a string.
  const schemaOf = (definition: string | undefined) => ({
    schema: definition === undefined ? { type: 'string' } : { $ref: refTo(definition, 'v3') },
  });
  // Media types are a map in the reference, written in key order.
  const contentOf = (mediaTypes: readonly string[], definition: string | undefined) =>
    Object.fromEntries([...mediaTypes].sort().map((mediaType) => [mediaType, schemaOf(definition)]));
  const body = operation.requestBody;
  return {
    tags: [operation.tag],
    description: operation.description,
    operationId: operation.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            content: contentOf(body.mediaTypes, body.definition),
            ...(body.required ? { required: true } : {}),
          },
        }
      : {}),
    responses: Object.fromEntries(
      operation.responses.map((response) => [
        String(response.code),
        {
          description: response.description,
          ...(response.definition || response.bytes
            ? { content: contentOf(operation.responseMediaTypes, response.definition) }
            : {}),
        },
      ]),
    ),
    ...extensions(operation, 'v3'),
  };
}

function v3Parameter(parameter: ParameterSpec, definitions: Definitions): object {
  const description = parameterDescription(parameter, definitions);
  return {
    name: parameter.name,
    in: parameter.in,
    ...(description !== undefined ? { description } : {}),
    ...(parameter.required ? { required: true } : {}),
    schema: { type: parameter.type, uniqueItems: true },
  };
}

function v2PathItem(path: ApiPath, definitions: Definitions): Record<string, unknown> {
  const { shared, operations } = placedParameters(path);
  const item: Record<string, unknown> = {};
  for (const { operation, own } of operations) item[operation.method] = v2Operation(operation, own, definitions);
  if (shared.length > 0) item.parameters = shared.map((parameter) => v2Parameter(parameter, definitions));
  return item;
}

/** A v2 parameter: `name` and `in` are where the sort looks. */
type V2Parameter = { readonly name: string; readonly in: string } & Record<string, unknown>;

function v2Operation(operation: ApiOperation, own: readonly ParameterSpec[], definitions: Definitions): object {
  const body = operation.requestBody;
  const bodyParameter: V2Parameter | undefined = body && {
    name: 'body',
    in: 'body',
    ...(body.required ? { required: true } : {}),
    schema: { $ref: refTo(body.definition, 'v2') },
  };
  // In v2 the body is a parameter like the others, sorted among them.
  const parameters = sortedParameters([
    ...(bodyParameter ? [bodyParameter] : []),
    ...own.map((parameter) => v2Parameter(parameter, definitions)),
  ]);
  const consumes = body?.mediaTypes ?? operation.consumes ?? ['*/*'];
  return {
    description: operation.description,
    ...(consumes.length > 0 ? { consumes } : {}),
    produces: operation.responseMediaTypes,
    schemes: ['https'],
    tags: [operation.tag],
    operationId: operation.operationId,
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: Object.fromEntries(
      operation.responses.map((response) => [
        String(response.code),
        {
          description: response.description,
          ...(response.definition ? { schema: { $ref: refTo(response.definition, 'v2') } } : {}),
          ...(response.bytes ? { schema: { type: 'string' } } : {}),
        },
      ]),
    ),
    ...extensions(operation, 'v2'),
  };
}

function v2Parameter(parameter: ParameterSpec, definitions: Definitions): V2Parameter {
  return {
    uniqueItems: true,
    type: parameter.type,
    description: parameterDescription(parameter, definitions),
    name: parameter.name,
    in: parameter.in,
    ...(parameter.required ? { required: true } : {}),
  };
}

/** The group the reference's aggregator serves itself rather than through a delegate server. */
const AGGREGATOR_OWN_GROUP = 'apiregistration.k8s.io';

/**
 * The operation's extensions. The kind is a struct in the reference, written in its fields'
 * order; but its aggregator reads the v2 documents of the servers it delegates to back as
 * JSON, and writes their kinds as maps, keys sorted: in v2 only the aggregator's own group
 * keeps the struct's order.
 */
function extensions(operation: ApiOperation, flavour: OpenAPIFlavour): object {
  const kind = operation.kind;
  const asMap = flavour === 'v2' && kind?.group !== AGGREGATOR_OWN_GROUP;
  return {
    ...(operation.action ? { 'x-kubernetes-action': operation.action } : {}),
    ...(kind
      ? {
          'x-kubernetes-group-version-kind': asMap
            ? { group: kind.group, kind: kind.kind, version: kind.version }
            : { group: kind.group, version: kind.version, kind: kind.kind },
        }
      : {}),
  };
}
