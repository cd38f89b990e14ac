/**
 * The parameters the API accepts, named and typed as the reference's OpenAPI documents declare
 * them. Clients read these: kubectl sends `fieldValidation=Strict` only when the PATCH operation
 * of a kind advertises the `fieldValidation` query parameter.
 *
 * A query parameter is a field of an options kind (ListOptions, DeleteOptions, ...): the
 * reference documents it with that field's description, so a parameter names the options
 * definition it comes from and its description is looked up there when a document is built.
 * Path parameters and `pretty` belong to no options kind; their texts are the reference's.
 */
import type { Definitions } from './component-schemas';

export interface ParameterSpec {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly type: 'string' | 'boolean' | 'integer';
  readonly required?: true;
  /** The definition of the options kind whose field of this name documents the parameter. */
  readonly documentedBy?: string;
  /** The description of a parameter that is no options field. */
  readonly description?: string;
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const LIST_OPTIONS = `${META}.ListOptions`;
const DELETE_OPTIONS = `${META}.DeleteOptions`;
const CREATE_OPTIONS = `${META}.CreateOptions`;
const UPDATE_OPTIONS = `${META}.UpdateOptions`;
const PATCH_OPTIONS = `${META}.PatchOptions`;
const GET_OPTIONS = `${META}.GetOptions`;

/** The fields of one options kind that the API takes as query parameters, by name. */
function optionsFields<Name extends string>(
  documentedBy: string,
  fields: Record<Name, ParameterSpec['type']>,
): Record<Name, ParameterSpec> {
  const parameters = {} as Record<Name, ParameterSpec>;
  for (const [name, type] of Object.entries(fields) as Array<[Name, ParameterSpec['type']]>)
    parameters[name] = { name, in: 'query', type, documentedBy };
  return parameters;
}

const LIST = optionsFields(LIST_OPTIONS, {
  allowWatchBookmarks: 'boolean',
  continue: 'string',
  fieldSelector: 'string',
  labelSelector: 'string',
  limit: 'integer',
  resourceVersion: 'string',
  resourceVersionMatch: 'string',
  sendInitialEvents: 'boolean',
  timeoutSeconds: 'integer',
  watch: 'boolean',
});
const DELETE = optionsFields(DELETE_OPTIONS, {
  dryRun: 'string',
  gracePeriodSeconds: 'integer',
  ignoreStoreReadErrorWithClusterBreakingPotential: 'boolean',
  orphanDependents: 'boolean',
  propagationPolicy: 'string',
});
const CREATE = optionsFields(CREATE_OPTIONS, { dryRun: 'string', fieldManager: 'string', fieldValidation: 'string' });
const UPDATE = optionsFields(UPDATE_OPTIONS, { dryRun: 'string', fieldManager: 'string', fieldValidation: 'string' });
const PATCH = optionsFields(PATCH_OPTIONS, {
  dryRun: 'string',
  fieldManager: 'string',
  fieldValidation: 'string',
  force: 'boolean',
});

export const PRETTY_PARAMETER: ParameterSpec = {
  name: 'pretty',
  in: 'query',
  type: 'string',
  description:
    "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
};

export function namespaceParameter(): ParameterSpec {
  return {
    name: 'namespace',
    in: 'path',
    type: 'string',
    description: 'object name and auth scope, such as for teams and projects',
    required: true,
  };
}

/** The `{name}` segment; the reference names the kind its route serves (the subresource's for a connect path). */
export function nameParameter(kind: string): ParameterSpec {
  return { name: 'name', in: 'path', type: 'string', description: `name of the ${kind}`, required: true };
}

/** The parameter's description: its own, else its options field's; absent without descriptions. */
export function parameterDescription(parameter: ParameterSpec, definitions: Definitions): string | undefined {
  if (parameter.description !== undefined) return parameter.description;
  if (parameter.documentedBy === undefined) return undefined;
  const options = definitions[parameter.documentedBy] as
    { properties?: Record<string, { description?: string }> } | undefined;
  return options?.properties?.[parameter.name]?.description;
}

/** Fields of an options kind that are no query parameter: its type, which the request's path says. */
const TYPE_FIELDS = new Set(['apiVersion', 'kind']);
/** The types a query parameter can have; a field of another type (a Time) is no parameter. */
const SIMPLE_TYPES = new Set<string>(['string', 'boolean', 'integer']);

/**
 * The query parameters an options kind (PodExecOptions, PodLogOptions) makes of its fields, as
 * the reference's installer does: each field of a simple type or a list of one, documented by
 * its field.
 */
export function optionsParameters(definition: string, definitions: Definitions): ParameterSpec[] {
  type Property = { type?: string; items?: { type?: string } };
  const properties = (definitions[definition] as { properties?: Record<string, Property> } | undefined)?.properties;
  const parameters: ParameterSpec[] = [];
  for (const [name, property] of Object.entries(properties ?? {})) {
    const type = property.type === 'array' ? property.items?.type : property.type;
    if (TYPE_FIELDS.has(name) || type === undefined || !SIMPLE_TYPES.has(type)) continue;
    parameters.push({ name, in: 'query', type: type as ParameterSpec['type'], documentedBy: definition });
  }
  return parameters;
}

/** Query parameters of a list or watch, in the reference's (alphabetical) order. */
export const LIST_PARAMETERS: readonly ParameterSpec[] = Object.values(LIST);

/** A read's options; only the reference's CRD builder documents them. */
export const GET_PARAMETERS: readonly ParameterSpec[] = Object.values(
  optionsFields(GET_OPTIONS, { resourceVersion: 'string' }),
);
export const CREATE_PARAMETERS: readonly ParameterSpec[] = Object.values(CREATE);
export const UPDATE_PARAMETERS: readonly ParameterSpec[] = Object.values(UPDATE);
export const PATCH_PARAMETERS: readonly ParameterSpec[] = Object.values(PATCH);
export const DELETE_PARAMETERS: readonly ParameterSpec[] = Object.values(DELETE);

export const DELETE_COLLECTION_PARAMETERS: readonly ParameterSpec[] = [
  LIST.continue,
  DELETE.dryRun,
  LIST.fieldSelector,
  DELETE.gracePeriodSeconds,
  DELETE.ignoreStoreReadErrorWithClusterBreakingPotential,
  LIST.labelSelector,
  LIST.limit,
  DELETE.orphanDependents,
  DELETE.propagationPolicy,
  LIST.resourceVersion,
  LIST.resourceVersionMatch,
  LIST.sendInitialEvents,
  LIST.timeoutSeconds,
];
