/**
 * The `resourceVersion` query parameter: a decimal revision, "0" or empty. The texts are the
 * reference server's (its parser is Go's strconv.ParseUint).
 */
import { goQuote } from '../../api/go-quote';
import { ObjectError } from '../errors';

const MAX_UINT64 = 2n ** 64n - 1n;

/** The revision a resourceVersion names; 0 for "" and "0". Throws BadRequest when it is not one. */
export function parseResourceVersion(resourceVersion: string | undefined): number {
  if (resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') return 0;
  const problem = !/^[0-9]+$/.test(resourceVersion)
    ? 'invalid syntax'
    : BigInt(resourceVersion) > MAX_UINT64
      ? 'value out of range'
      : undefined;
  if (problem !== undefined) {
    const quoted = goQuote(resourceVersion);
    throw new ObjectError(
      'BadRequest',
      `invalid resource version: resourceVersion: Invalid value: ${quoted}: strconv.ParseUint: parsing ${quoted}: ${problem}`,
    );
  }
  return Number(resourceVersion);
}

/**
 * 504 for a revision the store has not reached. After a wait for it, clients are told to retry
 * in a second; a read of an exact revision the store refused at once says no such thing
 * (`retryAfterSeconds` 0), as the reference's etcd read does not.
 */
export function tooLargeResourceVersion(options: {
  requested: number;
  current: number;
  retryAfterSeconds?: number;
}): ObjectError {
  return new ObjectError(
    'TooLargeResourceVersion',
    `Timeout: Too large resource version: ${options.requested}, current: ${options.current}`,
    { retryAfterSeconds: options.retryAfterSeconds ?? 1, currentRevision: options.current },
  );
}
