/**
 * The name a plugin's refusal gives the object, as the reference's admission errors do: a
 * create's mutating phase runs before the store generates the name, so an object asked for by
 * `generateName` is called by that prefix (and one with neither "Unknown").
 */
import type { AdmissionAttributes } from './types';

export function refusedName(attributes: AdmissionAttributes): string {
  if (attributes.name) return attributes.name;
  const metadata = attributes.object?.metadata;
  return metadata?.name || metadata?.generateName || 'Unknown';
}
