/**
 * The HTTP operations one group-version serves, as a neutral model that the OpenAPI v2 and v3
 * renderers both print: paths, methods, `x-kubernetes-action`, the kind each operation acts on,
 * parameters, request bodies and responses. Built from the registry, so the documents describe
 * exactly what the handlers serve; operation ids and paths follow the reference's scheme.
 */
import type { ResourceType, Verb } from '../registry/types';
import type { Definitions } from './component-schemas';
import type { ServedGroupVersion, ServedResource } from '../discovery/served-groups';
import { servedSubresources, type ServedSubresource } from '../discovery/subresources';
import {
  CREATE_PARAMETERS,
  DELETE_COLLECTION_PARAMETERS,
  DELETE_PARAMETERS,
  GET_PARAMETERS,
  LIST_PARAMETERS,
  PATCH_PARAMETERS,
  PRETTY_PARAMETER,
  UPDATE_PARAMETERS,
  nameParameter,
  namespaceParameter,
  optionsParameters,
  type ParameterSpec,
} from './parameters';

import type { GroupVersion, GroupVersionKind } from '../../api/identity';
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch';
export type Action =
  'get' | 'list' | 'watch' | 'watchlist' | 'put' | 'post' | 'delete' | 'deletecollection' | 'patch' | 'connect';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const WELL_KNOWN_DEFINITIONS = {
  apiResourceList: `${META}.APIResourceList`,
  deleteOptions: `${META}.DeleteOptions`,
  patch: `${META}.Patch`,
  status: `${META}.Status`,
  watchEvent: `${META}.WatchEvent`,
} as const;

export const OBJECT_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
] as const;
const STREAM_MEDIA_TYPES = [
  'application/json;stream=watch',
  'application/vnd.kubernetes.protobuf;stream=watch',
] as const;
/** In the order the reference's installer lists them, which its v2 document keeps (v3 sorts them). */
export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
/**
 * Strategic merge needs a kind's Go schema, which only built-in kinds have: a type with its
 * own definitions (a custom resource) takes the other patch types, and kubectl, which reads
 * this list, sends it a merge patch.
 */
function patchMediaTypesOf(type: ResourceType): readonly string[] {
  return type.definitions === undefined
    ? PATCH_MEDIA_TYPES
    : PATCH_MEDIA_TYPES.filter((mediaType) => mediaType !== 'application/strategic-merge-patch+json');
}
/** The methods the reference's proxies pass on, in the order a path item lists them. */
const PROXY_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
/** The verb of each method a connect subresource declares; a proxy passes OPTIONS and HEAD on besides. */
const VERB_OF_METHOD: Readonly<Partial<Record<HttpMethod, Verb>>> = {
  get: 'get',
  put: 'update',
  post: 'create',
  delete: 'delete',
  patch: 'patch',
};
/** The `{path}` segment of a proxy's second path. */
const PROXIED_PATH_PARAMETER: ParameterSpec = {
  name: 'path',
  in: 'path',
  type: 'string',
  description: 'path to the resource',
  required: true,
};
/** What the reference's CRD builder says custom resource routes take and answer. */
const CUSTOM_RESOURCE_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;
/** POST and PUT bodies are decoded by Content-Type among every codec the server has. */
const ANY_MEDIA_TYPE = ['*/*'] as const;
// The reference marks its `/watch/` paths deprecated in each operation's description.
const WATCH_PATH_DEPRECATION = "deprecated: use the 'watch' parameter with a list operation instead";

export interface ResponseSpec {
  readonly code: number;
  readonly description: string;
  /** Schema of the body; absent for bodiless answers (401) and for a stream of bytes. */
  readonly definition?: string;
  /** The body is a stream of bytes (a log, a connection), which the reference types as a string. */
  readonly bytes?: true;
}

export interface RequestBodySpec {
  readonly definition: string;
  readonly mediaTypes: readonly string[];
  readonly required: boolean;
}

export interface ApiOperation {
  readonly method: HttpMethod;
  /** Absent for the group-version's own resource list, which the reference gives no action. */
  readonly action?: Action;
  readonly operationId: string;
  readonly description: string;
  readonly tag: string;
  /** Absent for the group-version's own resource list. */
  readonly kind?: GroupVersionKind;
  /** Query parameters of this operation (path-level ones are on the path). */
  readonly parameters: readonly ParameterSpec[];
  readonly requestBody?: RequestBodySpec;
  readonly responses: readonly ResponseSpec[];
  readonly responseMediaTypes: readonly string[];
  /**
   * What a route without a body says it reads, which a v2 document lists (v3 has no place for
   * it): absent, any type, as go-restful declares a route that names none; empty, nothing.
   */
  readonly consumes?: readonly string[];
}

export interface ApiPath {
  readonly path: string;
  /** Parameters shared by every operation of the path: path segments, and `pretty` except on watches. */
  readonly parameters: readonly ParameterSpec[];
  readonly operations: readonly ApiOperation[];
}

/**
 * Every path one group-version serves, sorted by path. A group-version of custom resources is
 * documented as the reference's CRD builder documents it: no resource list, no watch paths.
 */
export function groupVersionPaths(groupVersion: ServedGroupVersion, definitions: Definitions): ApiPath[] {
  const naming = operationNaming(groupVersion);
  if (groupVersion.resources.every(isCustomResource)) {
    return groupVersion.resources
      .flatMap((resource) => customResourcePaths(resource, groupVersion, naming))
      .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  const root: ApiPath = {
    path: `${prefixOf(groupVersion)}/`,
    parameters: [],
    operations: [
      {
        method: 'get',
        operationId: `get${naming.groupVersion}APIResources`,
        description: 'get available resources',
        tag: naming.tag,
        parameters: [],
        responses: [ok(WELL_KNOWN_DEFINITIONS.apiResourceList), UNAUTHORIZED],
        responseMediaTypes: OBJECT_MEDIA_TYPES,
        consumes: OBJECT_MEDIA_TYPES,
      },
    ],
  };
  const paths = [
    root,
    ...groupVersion.resources.flatMap((resource) => resourcePaths({ resource, groupVersion, naming, definitions })),
  ];
  return paths
    .filter((path) => path.operations.length > 0)
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A custom resource, which the reference documents through its CRD builder. */
export function isCustomResource({ type }: ServedResource): boolean {
  return type.custom === true;
}

/** The definition of a served resource's list kind: its kind's definition with the list kind's name. */
export function listDefinitionOf({ type, served }: ServedResource): string {
  return served.definition.endsWith(`.${type.kind}`)
    ? `${served.definition.slice(0, -type.kind.length)}${type.listKind}`
    : `${served.definition}List`;
}

interface OperationNaming {
  /** `AppsV1`, `CoreV1`, `RbacAuthorizationV1`. */
  readonly groupVersion: string;
  /** `apps_v1`, `core_v1`, `rbacAuthorization_v1`. */
  readonly tag: string;
}

/** `Core`, `Apps`, `RbacAuthorization`: a group's name in operation ids and tags. */
export function groupCamelCase(group: string): string {
  const groupWords = group === '' ? ['core'] : group.replace(/\.k8s\.io$/, '').split(/[.-]/);
  return groupWords.map(capitalize).join('');
}

function operationNaming({ group, version }: GroupVersion): OperationNaming {
  const groupCamel = groupCamelCase(group);
  return {
    groupVersion: `${groupCamel}${capitalize(version)}`,
    tag: `${groupCamel.charAt(0).toLowerCase()}${groupCamel.slice(1)}_${version}`,
  };
}

function prefixOf({ group, version }: GroupVersion): string {
  return group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
}

function resourcePaths(options: {
  resource: ServedResource;
  groupVersion: ServedGroupVersion;
  naming: OperationNaming;
  definitions: Definitions;
}): ApiPath[] {
  const { resource, groupVersion, naming, definitions } = options;
  const { type } = resource;
  const prefix = prefixOf(groupVersion);
  const kind: GroupVersionKind = { group: groupVersion.group, version: groupVersion.version, kind: type.kind };
  const definition = resource.served.definition;
  const listDefinition = listDefinitionOf(resource);
  const can = (verb: Verb) => type.verbs.includes(verb);
  // A type without a protobuf form (a custom resource) does not offer it.
  const served = (mediaTypes: readonly string[]) =>
    type.protobuf === false ? mediaTypes.filter((mediaType) => !mediaType.includes('protobuf')) : mediaTypes;
  const objectMediaTypes = served(OBJECT_MEDIA_TYPES);
  const listMediaTypes = served([...OBJECT_MEDIA_TYPES, ...STREAM_MEDIA_TYPES]);
  const scope = type.namespaced ? 'Namespaced' : '';
  const id = (verb: string, suffix = '', scoped = scope) =>
    `${verb}${naming.groupVersion}${scoped}${type.kind}${suffix}`;
  const operation = (fields: Omit<ApiOperation, 'tag' | 'kind'> & { kind?: GroupVersionKind }): ApiOperation => ({
    tag: naming.tag,
    kind,
    ...fields,
  });

  const collectionPath = type.namespaced
    ? `${prefix}/namespaces/{namespace}/${type.resource}`
    : `${prefix}/${type.resource}`;
  const watchCollectionPath = type.namespaced
    ? `${prefix}/watch/namespaces/{namespace}/${type.resource}`
    : `${prefix}/watch/${type.resource}`;
  const scopeParameters = type.namespaced ? [namespaceParameter()] : [];
  const itemParameters = [nameParameter(type.kind), ...scopeParameters];

  // The reference offers watching in a list's description only where the kind can be watched.
  const listDescription = `list ${can('watch') ? 'or watch ' : ''}objects of kind ${type.kind}`;
  const collection: ApiOperation[] = [];
  if (can('list')) {
    collection.push(
      operation({
        method: 'get',
        action: 'list',
        operationId: id('list'),
        description: listDescription,
        parameters: LIST_PARAMETERS,
        responses: [ok(listDefinition), UNAUTHORIZED],
        responseMediaTypes: listMediaTypes,
      }),
    );
  }
  if (can('create')) {
    collection.push(
      operation({
        method: 'post',
        action: 'post',
        operationId: id('create'),
        description: `create ${withArticle(type.kind)}`,
        parameters: CREATE_PARAMETERS,
        requestBody: { definition, mediaTypes: ANY_MEDIA_TYPE, required: true },
        responses: [ok(definition), created(definition), accepted(definition), UNAUTHORIZED],
        responseMediaTypes: objectMediaTypes,
      }),
    );
  }
  if (can('deletecollection')) {
    collection.push(
      operation({
        method: 'delete',
        action: 'deletecollection',
        operationId: id('delete', '', `Collection${scope}`),
        description: `delete collection of ${type.kind}`,
        parameters: DELETE_COLLECTION_PARAMETERS,
        requestBody: { definition: WELL_KNOWN_DEFINITIONS.deleteOptions, mediaTypes: ANY_MEDIA_TYPE, required: false },
        responses: [ok(WELL_KNOWN_DEFINITIONS.status), UNAUTHORIZED],
        responseMediaTypes: objectMediaTypes,
      }),
    );
  }

  const deleteAnswer =
    type.returnsDeletedObject && !type.deleteDocumentedAsStatus ? definition : WELL_KNOWN_DEFINITIONS.status;
  const item: ApiOperation[] = [];
  if (can('get')) {
    item.push(
      operation({
        method: 'get',
        action: 'get',
        operationId: id('read'),
        description: `read the specified ${type.kind}`,
        parameters: [],
        responses: [ok(definition), UNAUTHORIZED],
        responseMediaTypes: objectMediaTypes,
      }),
    );
  }
  if (can('update'))
    item.push(replaceOperation({ operationId: id('replace'), what: `the specified ${type.kind}`, definition }));
  if (can('patch'))
    item.push(patchOperation({ operationId: id('patch'), what: `the specified ${type.kind}`, definition }));
  if (can('delete')) {
    item.push(
      operation({
        method: 'delete',
        action: 'delete',
        operationId: id('delete'),
        description: `delete ${withArticle(type.kind)}`,
        parameters: DELETE_PARAMETERS,
        requestBody: { definition: WELL_KNOWN_DEFINITIONS.deleteOptions, mediaTypes: ANY_MEDIA_TYPE, required: false },
        responses: [ok(deleteAnswer), accepted(deleteAnswer), UNAUTHORIZED],
        responseMediaTypes: objectMediaTypes,
      }),
    );
  }

  const paths: ApiPath[] = [
    { path: collectionPath, parameters: [...scopeParameters, PRETTY_PARAMETER], operations: collection },
    { path: `${collectionPath}/{name}`, parameters: [...itemParameters, PRETTY_PARAMETER], operations: item },
  ];

  if (type.namespaced && can('list')) {
    paths.push({
      path: `${prefix}/${type.resource}`,
      parameters: [PRETTY_PARAMETER],
      operations: [
        operation({
          method: 'get',
          action: 'list',
          operationId: id('list', 'ForAllNamespaces', ''),
          description: listDescription,
          parameters: LIST_PARAMETERS,
          responses: [ok(listDefinition), UNAUTHORIZED],
          responseMediaTypes: listMediaTypes,
        }),
      ],
    });
  }

  if (can('watch')) {
    const watchList = (operationId: string): ApiOperation =>
      operation({
        method: 'get',
        action: 'watchlist',
        operationId,
        description: `watch individual changes to a list of ${type.kind}. ${WATCH_PATH_DEPRECATION}.`,
        parameters: [...LIST_PARAMETERS, PRETTY_PARAMETER],
        responses: [ok(WELL_KNOWN_DEFINITIONS.watchEvent), UNAUTHORIZED],
        responseMediaTypes: listMediaTypes,
      });
    paths.push(
      { path: watchCollectionPath, parameters: scopeParameters, operations: [watchList(id('watch', 'List'))] },
      {
        path: `${watchCollectionPath}/{name}`,
        parameters: itemParameters,
        operations: [
          operation({
            method: 'get',
            action: 'watch',
            operationId: id('watch'),
            description:
              `watch changes to an object of kind ${type.kind}. ${WATCH_PATH_DEPRECATION}, ` +
              "filtered to a single item with the 'fieldSelector' parameter.",
            parameters: [...LIST_PARAMETERS, PRETTY_PARAMETER],
            responses: [ok(WELL_KNOWN_DEFINITIONS.watchEvent), UNAUTHORIZED],
            responseMediaTypes: listMediaTypes,
          }),
        ],
      },
    );
    if (type.namespaced) {
      paths.push({
        path: `${prefix}/watch/${type.resource}`,
        parameters: [],
        operations: [watchList(id('watch', 'ListForAllNamespaces', ''))],
      });
    }
  }

  for (const subresource of servedSubresources(type, groupVersion)) {
    const itemPath = `${collectionPath}/{name}`;
    if (subresource.endpoint?.produces === 'anything') paths.push(...connectPaths(subresource, itemPath));
    else paths.push(subresourcePath({ type, subresource, itemPath, itemParameters, id }));
  }
  return paths;

  /**
   * A connect subresource (exec, attach, portforward, proxy): one operation per HTTP method it
   * passes on, taking its options kind's fields as query parameters and answering bytes; a proxy
   * has a second path with the path it proxies to.
   */
  function connectPaths(subresource: ServedSubresource, itemPath: string): ApiPath[] {
    const methods: readonly HttpMethod[] = subresource.endpoint?.takesPath
      ? PROXY_METHODS
      : PROXY_METHODS.filter((method) => subresource.verbs.some((verb) => verb === VERB_OF_METHOD[method]));
    const suffix = capitalize(subresource.name);
    const pathParameters = [nameParameter(subresource.responseKind.kind), ...scopeParameters];
    const queryParameters = optionsParameters(subresource.definition, definitions);
    const connect = (withPath: string) =>
      methods.map((method) =>
        operation({
          method,
          action: 'connect',
          operationId: id('connect', `${suffix}${withPath}`, `${capitalize(method)}${scope}`),
          description: `connect ${method.toUpperCase()} requests to ${subresource.name} of ${type.kind}`,
          parameters: queryParameters,
          responses: [{ ...OK, bytes: true }, UNAUTHORIZED],
          responseMediaTypes: ANY_MEDIA_TYPE,
          kind: subresource.responseKind,
        }),
      );
    const paths: ApiPath[] = [
      { path: `${itemPath}/${subresource.name}`, parameters: pathParameters, operations: connect('') },
    ];
    if (subresource.endpoint?.takesPath) {
      paths.push({
        path: `${itemPath}/${subresource.name}/{path}`,
        parameters: [...pathParameters, PROXIED_PATH_PARAMETER],
        operations: connect('WithPath'),
      });
    }
    return paths;
  }

  function replaceOperation(options: {
    operationId: string;
    what: string;
    definition: string;
    kind?: GroupVersionKind;
  }) {
    return operation({
      method: 'put',
      action: 'put',
      operationId: options.operationId,
      description: `replace ${options.what}`,
      parameters: UPDATE_PARAMETERS,
      requestBody: { definition: options.definition, mediaTypes: ANY_MEDIA_TYPE, required: true },
      responses: [ok(options.definition), created(options.definition), UNAUTHORIZED],
      responseMediaTypes: objectMediaTypes,
      ...(options.kind ? { kind: options.kind } : {}),
    });
  }

  function patchOperation(options: { operationId: string; what: string; definition: string; kind?: GroupVersionKind }) {
    return operation({
      method: 'patch',
      action: 'patch',
      operationId: options.operationId,
      description: `partially update ${options.what}`,
      parameters: PATCH_PARAMETERS,
      requestBody: { definition: WELL_KNOWN_DEFINITIONS.patch, mediaTypes: patchMediaTypesOf(type), required: true },
      responses: [ok(options.definition), created(options.definition), UNAUTHORIZED],
      responseMediaTypes: objectMediaTypes,
      ...(options.kind ? { kind: options.kind } : {}),
    });
  }

  function subresourcePath(options: {
    type: ResourceType;
    subresource: ServedSubresource;
    itemPath: string;
    itemParameters: readonly ParameterSpec[];
    id: (verb: string, suffix?: string) => string;
  }): ApiPath {
    const { subresource } = options;
    const suffix = capitalize(subresource.name);
    const subresourceDefinition = subresource.definition;
    const what = `${subresource.name} of the specified ${options.type.kind}`;
    const operations: ApiOperation[] = [];
    const produces = subresource.endpoint?.produces;
    const streamOptions = subresource.endpoint?.optionsDefinition;
    if (Array.isArray(produces) && streamOptions !== undefined) {
      // A stream read as a get (pods/log): its options kind's fields are its query parameters.
      operations.push(
        operation({
          method: 'get',
          action: 'get',
          operationId: options.id('read', suffix),
          description: `read ${what}`,
          parameters: optionsParameters(streamOptions, definitions),
          responses: [{ ...OK, bytes: true }, UNAUTHORIZED],
          responseMediaTypes: [...produces, ...objectMediaTypes],
          kind: subresource.responseKind,
        }),
      );
    } else if (subresource.verbs.includes('get')) {
      operations.push(
        operation({
          method: 'get',
          action: 'get',
          operationId: options.id('read', suffix),
          description: `read ${what}`,
          parameters: [],
          responses: [ok(subresourceDefinition), UNAUTHORIZED],
          responseMediaTypes: objectMediaTypes,
          kind: subresource.responseKind,
        }),
      );
    }
    if (subresource.verbs.includes('create')) {
      operations.push(
        operation({
          method: 'post',
          action: 'post',
          operationId: options.id('create', suffix),
          description: `create ${subresource.name} of ${withArticle(options.type.kind)}`,
          parameters: CREATE_PARAMETERS,
          requestBody: { definition: subresourceDefinition, mediaTypes: ANY_MEDIA_TYPE, required: true },
          responses: [
            ok(subresourceDefinition),
            created(subresourceDefinition),
            accepted(subresourceDefinition),
            UNAUTHORIZED,
          ],
          responseMediaTypes: objectMediaTypes,
          kind: subresource.responseKind,
        }),
      );
    }
    if (subresource.verbs.includes('update')) {
      operations.push(
        replaceOperation({
          operationId: options.id('replace', suffix),
          what,
          definition: subresourceDefinition,
          kind: subresource.responseKind,
        }),
      );
    }
    if (subresource.verbs.includes('patch')) {
      operations.push(
        patchOperation({
          operationId: options.id('patch', suffix),
          what,
          definition: subresourceDefinition,
          kind: subresource.responseKind,
        }),
      );
    }
    // The reference names the kind the subresource's route serves (Scale, Binding, or the parent's own).
    const [, ...scopeParameters] = options.itemParameters;
    return {
      path: `${options.itemPath}/${subresource.name}`,
      parameters: [nameParameter(subresource.responseKind.kind), ...scopeParameters, PRETTY_PARAMETER],
      operations,
    };
  }
}

/**
 * The paths of one custom resource as the reference's CRD builder writes them: each route takes
 * the options of its action, bodies are JSON or YAML, answers are JSON or YAML, a patch answers
 * 200 alone, and a subresource's operations carry the custom resource's kind.
 */
function customResourcePaths(
  resource: ServedResource,
  groupVersion: ServedGroupVersion,
  naming: OperationNaming,
): ApiPath[] {
  const { type } = resource;
  const prefix = prefixOf(groupVersion);
  const kind: GroupVersionKind = { group: groupVersion.group, version: groupVersion.version, kind: type.kind };
  const definition = resource.served.definition;
  const listDefinition = listDefinitionOf(resource);
  const scope = type.namespaced ? 'Namespaced' : '';
  const id = (verb: string, suffix = '', scoped = scope) =>
    `${verb}${naming.groupVersion}${scoped}${type.kind}${suffix}`;
  const operation = (fields: Omit<ApiOperation, 'tag' | 'kind' | 'responseMediaTypes'>): ApiOperation => ({
    tag: naming.tag,
    kind,
    responseMediaTypes: CUSTOM_RESOURCE_MEDIA_TYPES,
    consumes: CUSTOM_RESOURCE_MEDIA_TYPES,
    ...fields,
  });
  const body = (bodyDefinition: string): RequestBodySpec => ({
    definition: bodyDefinition,
    mediaTypes: CUSTOM_RESOURCE_MEDIA_TYPES,
    required: true,
  });
  const list = (operationId: string) =>
    operation({
      method: 'get',
      action: 'list',
      operationId,
      description: `list objects of kind ${type.kind}`,
      parameters: LIST_PARAMETERS,
      responses: [ok(listDefinition), UNAUTHORIZED],
    });
  const read = (suffix: string, what: string, responseDefinition: string) =>
    operation({
      method: 'get',
      action: 'get',
      operationId: id('read', capitalize(suffix)),
      description: `read ${what}`,
      parameters: GET_PARAMETERS,
      responses: [ok(responseDefinition), UNAUTHORIZED],
    });
  const replace = (suffix: string, what: string, objectDefinition: string) =>
    operation({
      method: 'put',
      action: 'put',
      operationId: id('replace', capitalize(suffix)),
      description: `replace ${what}`,
      parameters: UPDATE_PARAMETERS,
      requestBody: body(objectDefinition),
      responses: [ok(objectDefinition), created(objectDefinition), UNAUTHORIZED],
    });
  const patch = (suffix: string, what: string, objectDefinition: string) =>
    operation({
      method: 'patch',
      action: 'patch',
      operationId: id('patch', capitalize(suffix)),
      description: `partially update ${what}`,
      parameters: PATCH_PARAMETERS,
      requestBody: {
        definition: WELL_KNOWN_DEFINITIONS.patch,
        mediaTypes: patchMediaTypesOf(type),
        required: true,
      },
      responses: [ok(objectDefinition), UNAUTHORIZED],
    });

  const collectionPath = type.namespaced
    ? `${prefix}/namespaces/{namespace}/${type.resource}`
    : `${prefix}/${type.resource}`;
  const scopeParameters = type.namespaced ? [namespaceParameter()] : [];
  const itemParameters = [nameParameter(type.kind), ...scopeParameters, PRETTY_PARAMETER];
  const specified = `the specified ${type.kind}`;
  const paths: ApiPath[] = [
    {
      path: collectionPath,
      parameters: [...scopeParameters, PRETTY_PARAMETER],
      operations: [
        list(id('list')),
        operation({
          method: 'post',
          action: 'post',
          operationId: id('create'),
          description: `create ${withArticle(type.kind)}`,
          parameters: CREATE_PARAMETERS,
          requestBody: body(definition),
          responses: [ok(definition), created(definition), accepted(definition), UNAUTHORIZED],
        }),
        operation({
          method: 'delete',
          action: 'deletecollection',
          operationId: id('delete', '', `Collection${scope}`),
          description: `delete collection of ${type.kind}`,
          parameters: LIST_PARAMETERS,
          responses: [ok(WELL_KNOWN_DEFINITIONS.status), UNAUTHORIZED],
        }),
      ],
    },
    {
      path: `${collectionPath}/{name}`,
      parameters: itemParameters,
      operations: [
        read('', specified, definition),
        replace('', specified, definition),
        operation({
          method: 'delete',
          action: 'delete',
          operationId: id('delete'),
          description: `delete ${withArticle(type.kind)}`,
          parameters: DELETE_PARAMETERS,
          requestBody: {
            definition: WELL_KNOWN_DEFINITIONS.deleteOptions,
            mediaTypes: CUSTOM_RESOURCE_MEDIA_TYPES,
            required: false,
          },
          responses: [ok(WELL_KNOWN_DEFINITIONS.status), accepted(WELL_KNOWN_DEFINITIONS.status), UNAUTHORIZED],
        }),
        patch('', specified, definition),
      ],
    },
  ];
  if (type.namespaced) {
    paths.push({
      path: `${prefix}/${type.resource}`,
      parameters: [PRETTY_PARAMETER],
      operations: [list(id('list', 'ForAllNamespaces', ''))],
    });
  }
  for (const subresource of servedSubresources(type, groupVersion)) {
    const what = `${subresource.name} of the specified ${type.kind}`;
    paths.push({
      path: `${collectionPath}/{name}/${subresource.name}`,
      parameters: itemParameters,
      operations: [
        read(subresource.name, what, subresource.definition),
        replace(subresource.name, what, subresource.definition),
        patch(subresource.name, what, subresource.definition),
      ],
    });
  }
  return paths;
}

export const UNAUTHORIZED: ResponseSpec = { code: 401, description: 'Unauthorized' };

const OK: ResponseSpec = { code: 200, description: 'OK' };

function ok(definition: string): ResponseSpec {
  return { code: 200, description: 'OK', definition };
}

function created(definition: string): ResponseSpec {
  return { code: 201, description: 'Created', definition };
}

function accepted(definition: string): ResponseSpec {
  return { code: 202, description: 'Accepted', definition };
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** The kind with its article as the reference writes it: none before a plural-looking name (Endpoints). */
function withArticle(kind: string): string {
  if (kind.endsWith('s') && !kind.endsWith('ss')) return kind;
  return `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind}`;
}

/** Every definition the operations name directly (the roots of a document's schemas). */
export function referencedDefinitions(paths: readonly ApiPath[]): Set<string> {
  const names = new Set<string>();
  for (const path of paths) {
    for (const operation of path.operations) {
      if (operation.requestBody) names.add(operation.requestBody.definition);
      for (const response of operation.responses) if (response.definition) names.add(response.definition);
    }
  }
  return names;
}
