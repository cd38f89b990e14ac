/**
 * Byte-wise key ranges shared by the backends. Keys are UTF-8 strings compared as bytes, the
 * order etcd uses and the one SQLite's BLOB comparison gives.
 */

/** A byte that never occurs in UTF-8, so it sorts after every key. */
const ABOVE_EVERY_KEY = Buffer.from([0xff]);

export function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8');
}

/**
 * The first byte string after every key starting with `prefix` (exclusive range end). The last
 * byte of a UTF-8 string is never 0xff, so incrementing it cannot overflow; "" has no such
 * byte and gets the end above every key.
 */
export function prefixEnd(prefix: string): Buffer {
  if (prefix === '') return ABOVE_EVERY_KEY;
  const end = keyBytes(prefix);
  end[end.length - 1] += 1;
  return end;
}
