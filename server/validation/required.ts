/**
 * Required fields declared as data (`spec.signerName`, `provisioner` ...): the reference's
 * `<path>: Required value` for kinds whose other rules we do not check yet. When the schema
 * data lands, its `required` lists can feed the same function.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { valueAtPath } from '../json/value';
import { FieldPath, required } from '../status/field-errors';

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

/** A validator reporting each listed dotted path that is absent or empty. */
export function requireFields(...paths: string[]): (object: KubeObject) => FieldError[] {
  return (object) =>
    paths.filter((path) => isMissing(valueAtPath(object, path))).map((path) => required(FieldPath.root(path)));
}
