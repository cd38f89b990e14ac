/**
 * `storageVersionHash` of discovery: lets clients (the storage-version migrator) notice when the
 * version objects are stored in changes. The reference derives it from the storage version's
 * `<group>/<version>/<kind>`: base64 of the first 8 bytes of its SHA-256.
 */
import { createHash } from 'node:crypto';
import type { GroupVersionKind } from '../../api/identity';

export function storageVersionHash({ group, version, kind }: GroupVersionKind): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}
