/**
 * The parameters the API accepts, named and typed as the reference's OpenAPI documents declare
 * them. Clients read these: kubectl sends `fieldValidation=Strict` only when the PATCH operation
 * of a kind advertises the `fieldValidation` query parameter.
 */

export interface ParameterSpec {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly type: 'string' | 'boolean' | 'integer';
  readonly description: string;
  readonly required?: true;
}

function query(name: string, type: ParameterSpec['type'], description: string): ParameterSpec {
  return { name, in: 'query', type, description };
}

export const PARAMETERS = {
  allowWatchBookmarks: query('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events on a watch.'),
  continue: query('continue', 'string', 'Token from a previous page of a paged list.'),
  dryRun: query('dryRun', 'string', 'All: run every stage of the request without persisting anything.'),
  fieldManager: query('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields.'),
  fieldSelector: query('fieldSelector', 'string', 'Restrict the objects returned by their fields.'),
  fieldValidation: query(
    'fieldValidation',
    'string',
    'How to treat unknown or duplicate fields in the request body: Ignore, Warn or Strict.',
  ),
  force: query('force', 'boolean', 'Take over fields owned by other managers in an apply request.'),
  gracePeriodSeconds: query('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted.'),
  ignoreStoreReadErrorWithClusterBreakingPotential: query(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Delete an object that cannot be read from storage.',
  ),
  labelSelector: query('labelSelector', 'string', 'Restrict the objects returned by their labels.'),
  limit: query('limit', 'integer', 'Most objects to return in one page of a list.'),
  orphanDependents: query('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.'),
  pretty: query('pretty', 'string', "If 'true', indent the output."),
  propagationPolicy: query(
    'propagationPolicy',
    'string',
    'Garbage collection of dependents: Orphan, Background or Foreground.',
  ),
  resourceVersion: query('resourceVersion', 'string', 'Which version of the data a read may be served from.'),
  resourceVersionMatch: query(
    'resourceVersionMatch',
    'string',
    'How resourceVersion applies to a list: Exact or NotOlderThan.',
  ),
  sendInitialEvents: query(
    'sendInitialEvents',
    'boolean',
    'Start a watch with synthetic ADDED events for the current state.',
  ),
  timeoutSeconds: query('timeoutSeconds', 'integer', 'Time limit of a list or watch call.'),
  watch: query('watch', 'boolean', 'Watch for changes instead of listing.'),
} as const;

export function namespaceParameter(): ParameterSpec {
  return { name: 'namespace', in: 'path', type: 'string', description: 'Namespace of the objects.', required: true };
}

export function nameParameter(kind: string): ParameterSpec {
  return { name: 'name', in: 'path', type: 'string', description: `Name of the ${kind}.`, required: true };
}

const P = PARAMETERS;

/** Query parameters of a list or watch, in the reference's (alphabetical) order. */
export const LIST_PARAMETERS: readonly ParameterSpec[] = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];

export const CREATE_PARAMETERS: readonly ParameterSpec[] = [P.dryRun, P.fieldManager, P.fieldValidation];
export const UPDATE_PARAMETERS: readonly ParameterSpec[] = [P.dryRun, P.fieldManager, P.fieldValidation];
export const PATCH_PARAMETERS: readonly ParameterSpec[] = [P.dryRun, P.fieldManager, P.fieldValidation, P.force];

export const DELETE_PARAMETERS: readonly ParameterSpec[] = [
  P.dryRun,
  P.gracePeriodSeconds,
  P.ignoreStoreReadErrorWithClusterBreakingPotential,
  P.orphanDependents,
  P.propagationPolicy,
];

export const DELETE_COLLECTION_PARAMETERS: readonly ParameterSpec[] = [
  P.continue,
  P.dryRun,
  P.fieldSelector,
  P.gracePeriodSeconds,
  P.ignoreStoreReadErrorWithClusterBreakingPotential,
  P.labelSelector,
  P.limit,
  P.orphanDependents,
  P.propagationPolicy,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
];
