/**
 * Tolerations written as a JSON list in an annotation (a pod's
 * `scheduler.alpha.kubernetes.io/tolerations`, a namespace's default and whitelisted ones), read
 * as Go's encoding/json reads them into a list of the reference's Toleration structs: keys matched
 * regardless of case, null leaving a member unset, and its error texts, which name the Go package
 * the reader decodes into.
 */
import { goJSONSyntaxError, goTypeOf } from '../../api/go-json-syntax';
import type { Toleration } from './pod-scheduling';

/** The Go package of the Toleration struct decoded into: the versioned one or the internal one. */
export type TolerationGoPackage = 'v1' | 'core';

export type DecodedTolerations =
  | { readonly tolerations: Toleration[]; readonly error?: undefined }
  | { readonly error: string; readonly tolerations?: undefined };

const TOLERATION_FIELDS = ['key', 'operator', 'value', 'effect', 'tolerationSeconds'] as const;

export function decodeTolerations(text: string, goPackage: TolerationGoPackage): DecodedTolerations {
  let decoded: unknown;
  try {
    decoded = JSON.parse(text);
  } catch (error) {
    return { error: goJSONSyntaxError(text, error as Error) };
  }
  const cannot = (value: unknown, into: string) => ({
    error: `json: cannot unmarshal ${goTypeOf(value)} into Go ${into}`,
  });
  if (decoded === null) return { tolerations: [] };
  if (!Array.isArray(decoded)) return cannot(decoded, `value of type []${goPackage}.Toleration`);
  const tolerations: Toleration[] = [];
  for (const item of decoded as unknown[]) {
    if (item === null) {
      tolerations.push({});
      continue;
    }
    if (typeof item !== 'object' || Array.isArray(item)) return cannot(item, `value of type ${goPackage}.Toleration`);
    const toleration: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(item)) {
      const field = TOLERATION_FIELDS.find((known) => known.toLowerCase() === name.toLowerCase());
      if (field === undefined || value === null) continue;
      if (field !== 'tolerationSeconds') {
        if (typeof value !== 'string') return cannot(value, `struct field Toleration.${field} of type string`);
      } else if (typeof value !== 'number') {
        return cannot(value, 'struct field Toleration.tolerationSeconds of type int64');
      } else if (!Number.isSafeInteger(value)) {
        return {
          error: `json: cannot unmarshal number ${value} into Go struct field Toleration.tolerationSeconds of type int64`,
        };
      }
      toleration[field] = value;
    }
    tolerations.push(toleration as Toleration);
  }
  return { tolerations };
}
