/**
 * The `resourceVersion` query parameter: a decimal revision, "0" or empty. The texts are the
 * reference server's (its parser is Go's strconv.ParseUint).
 */
import { goQuote } from '../../api/go-quote';
import { ObjectError } from '../errors';

const MAX_UINT64 = 2n ** 64n - 1n;

/** Go's strconv.ParseUint(text, 10, 64): the number, or the words of its refusal. */
function parseUint64(text: string): bigint | string {
  const problem = !/^[0-9]+$/.test(text) ? 'invalid syntax' : BigInt(text) > MAX_UINT64 ? 'value out of range' : '';
  return problem === '' ? BigInt(text) : `strconv.ParseUint: parsing ${goQuote(text)}: ${problem}`;
}

/** The revision a resourceVersion names; 0 for "" and "0". Throws BadRequest when it is not one. */
export function parseResourceVersion(resourceVersion: string | undefined): number {
  if (resourceVersion === undefined || resourceVersion === '' || resourceVersion === '0') return 0;
  const parsed = parseUint64(resourceVersion);
  if (typeof parsed === 'string') {
    throw new ObjectError(
      'BadRequest',
      `invalid resource version: resourceVersion: Invalid value: ${goQuote(resourceVersion)}: ${parsed}`,
    );
  }
  return Number(resourceVersion);
}

/**
 * The revision an object's own resourceVersion names, as an update's precondition: 0 (none,
 * whatever is current) when absent or any spelling of zero, and read as a number, so `007` is
 * revision 7. Text that is no number is BadRequest in ParseUint's words (the reference's 500).
 */
export function objectResourceVersion(resourceVersion: string | undefined): bigint {
  if (resourceVersion === undefined || resourceVersion === '') return 0n;
  const parsed = parseUint64(resourceVersion);
  if (typeof parsed === 'string') throw new ObjectError('BadRequest', parsed);
  return parsed;
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
