/**
 * A custom resource's replicas and selector as the reference reads them for its scale
 * subresource: with unstructured.NestedInt64 and NestedString, which find nothing where a
 * member is absent and fail, with their own text, where a member on the way is no object or the
 * value is not an int64 (a string) as the JSON decoder makes it. The same reading backs the
 * Scale the endpoints show and the checks the custom resource's validation makes of the paths.
 */
import { goTypeName, goValue } from '../../apply/go-print';
import { isObject } from '../../json/value';
import { FieldPath, invalid } from '../../status/field-errors';
import type { FieldError, ScaleSubresource } from '../types';

const INT32_MAX = 2 ** 31 - 1;

type Nested = { readonly found: true; readonly value: unknown } | { readonly found: false; readonly error?: string };

/** The value at a dotted path, or why the reference's NestedFieldNoCopy cannot reach it. */
function nestedField(object: unknown, path: string): Nested {
  const segments = path.split('.');
  let value = object;
  for (let i = 0; i < segments.length; i++) {
    if (!isObject(value))
      return { found: false, error: accessorError(segments.slice(0, i), value, 'map[string]interface{}') };
    if (!(segments[i] in value)) return { found: false };
    value = value[segments[i]];
  }
  return { found: true, value };
}

function accessorError(segments: readonly string[], value: unknown, expected: string): string {
  return `.${segments.join('.')} accessor error: ${goValue(value)} is of the type ${goTypeName(value)}, expected ${expected}`;
}

/** NestedInt64: the whole number found (0 when absent), or the accessor's error. */
function nestedInt64(object: unknown, path: string): { value: number; found: boolean; error?: string } {
  const nested = nestedField(object, path);
  if (!nested.found) return { value: 0, found: false, error: nested.error };
  if (goTypeName(nested.value) !== 'int64')
    return { value: 0, found: false, error: accessorError(path.split('.'), nested.value, 'int64') };
  return { value: nested.value as number, found: true };
}

/** NestedString: the text found ('' when absent), or the accessor's error. */
function nestedString(object: unknown, path: string): { value: string; error?: string } {
  const nested = nestedField(object, path);
  if (!nested.found) return { value: '', error: nested.error };
  if (typeof nested.value !== 'string')
    return { value: '', error: accessorError(path.split('.'), nested.value, 'string') };
  return { value: nested.value };
}

/** Go's int32(n) of an int64: its low 32 bits, as the Scale's replicas hold it. */
function toInt32(value: number): number {
  return Number(BigInt.asIntN(32, BigInt(value)));
}

export interface CustomScaleReading {
  readonly specReplicas: number;
  /** The spec replicas path holds a number (an absent one reads as 0). */
  readonly specReplicasFound: boolean;
  readonly statusReplicas: number;
  readonly selector: string;
}

/** Thrown where the parent cannot be read as a Scale: the reference passes the accessor's text on unclassified. */
export class CustomScaleReadError extends Error {}

/** The parent read as the reference's scaleFromCustomResource reads it: spec replicas, status replicas, selector. */
export function readCustomScale(parent: unknown, paths: ScaleSubresource): CustomScaleReading {
  const spec = nestedInt64(parent, paths.specReplicasPath);
  if (spec.error !== undefined) throw new CustomScaleReadError(spec.error);
  const status = nestedInt64(parent, paths.statusReplicasPath);
  if (status.error !== undefined) throw new CustomScaleReadError(status.error);
  const selector =
    paths.labelSelectorPath === undefined ? { value: '' } : nestedString(parent, paths.labelSelectorPath);
  if (selector.error !== undefined) throw new CustomScaleReadError(selector.error);
  return {
    specReplicas: toInt32(spec.value),
    specReplicasFound: spec.found,
    statusReplicas: toInt32(status.value),
    selector: selector.value,
  };
}

/** A replicas value's field errors: its accessor's error, a negative count, one past int32. */
function replicasErrors(object: unknown, path: string): FieldError[] {
  const field = FieldPath.root(`.${path}`);
  const { value, error } = nestedInt64(object, path);
  if (error !== undefined) return [invalid(field, value, error)];
  if (value < 0) return [invalid(field, value, 'should be a non-negative integer')];
  if (value > INT32_MAX) return [invalid(field, value, `should be less than or equal to ${INT32_MAX}`)];
  return [];
}

/** The reference's ValidateScaleSpec: the spec replicas path, on writes of the whole object. */
export function validateCustomScaleSpec(object: unknown, paths: ScaleSubresource): FieldError[] {
  return replicasErrors(object, paths.specReplicasPath);
}

/** The reference's ValidateScaleStatus: the status replicas path, then the selector path, on every write. */
export function validateCustomScaleStatus(object: unknown, paths: ScaleSubresource): FieldError[] {
  const errors = replicasErrors(object, paths.statusReplicasPath);
  if (paths.labelSelectorPath !== undefined) {
    const { value, error } = nestedString(object, paths.labelSelectorPath);
    if (error !== undefined) errors.push(invalid(FieldPath.root(`.${paths.labelSelectorPath}`), value, error));
  }
  return errors;
}
