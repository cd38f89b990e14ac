/**
 * Values both the admission webhooks and the admission policies of admissionregistration.k8s.io
 * take, as Go's sets.String.List() lists them (sorted) in the reference's messages.
 */
import type { FieldError } from '../types';
import { notSupported, type FieldPath } from '../../status/field-errors';
import type { Json } from '../defaults/fill';

export const FAILURE_POLICIES = ['Fail', 'Ignore'];
export const MATCH_POLICIES = ['Equivalent', 'Exact'];
export const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

/** Set: neither absent nor null (a Go pointer that is not nil). */
export function present(value: unknown): value is Json {
  return value !== undefined && value !== null;
}

/** The value if one of `supported`, else the reference's NotSupported. */
export function supportedOnly(value: unknown, supported: readonly string[], path: FieldPath): FieldError[] {
  return supported.includes(value as string) ? [] : [notSupported(path, value, [...supported])];
}
