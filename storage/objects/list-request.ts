/**
 * What a list request asks to read, from its resourceVersion, resourceVersionMatch, limit and
 * continue (the table in spec "Resource versions"). Both list implementations (the store and the
 * watch cache) start here, so they accept and refuse the same combinations with the same texts.
 */
import { ObjectError } from '../errors';
import { decodeContinueToken } from './continue-token';
import { parseResourceVersion } from './resource-version';
import type { ListOptions } from './types';

export type ListRead =
  /** Most Recent: a consistent read of the current state. */
  | { readonly kind: 'consistent' }
  /** Any: the newest state at hand, stale allowed. */
  | { readonly kind: 'any' }
  /** A state at least as new as `revision`. */
  | { readonly kind: 'notOlderThan'; readonly revision: number }
  /** Exactly the state at `revision`, else 410. */
  | { readonly kind: 'exact'; readonly revision: number }
  /** The next page of a paged list: `revision` is LATEST_REVISION (-1) after an expired token. */
  | { readonly kind: 'continue'; readonly revision: number; readonly startKey: string };

export function interpretListOptions(options: ListOptions, listPrefix: string): ListRead {
  const resourceVersion = options.resourceVersion ?? '';
  const match = options.resourceVersionMatch;
  const token = options.continue ?? '';
  const badRequest = (message: string): ObjectError => new ObjectError('BadRequest', message);

  if (match !== undefined) {
    if (resourceVersion === '')
      throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
    if (token !== '') throw badRequest('resourceVersionMatch is forbidden when continue is provided');
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      throw badRequest(`unknown ResourceVersionMatch: ${JSON.stringify(match)}`);
    }
    if (match === 'Exact' && resourceVersion === '0') {
      throw badRequest('resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    }
  }
  if (token !== '') {
    if (resourceVersion !== '' && resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    const position = decodeContinueToken(token, listPrefix);
    return { kind: 'continue', revision: position.revision, startKey: position.startKey };
  }

  const revision = parseResourceVersion(resourceVersion);
  if (match === 'Exact') return { kind: 'exact', revision };
  if (resourceVersion === '') return { kind: 'consistent' };
  if (revision === 0) return { kind: 'any' };
  // A limited list at a given version without a match is Exact (the legacy meaning clients rely on).
  if (match === undefined && (options.limit ?? 0) > 0) return { kind: 'exact', revision };
  return { kind: 'notOlderThan', revision };
}
