/** Rules of the resource.k8s.io kinds that clients meet first, with the reference's texts. */
import type { KubeObject } from '../../storage/objects/types';
import type { FieldError } from '../registry/types';
import { FieldPath, invalid, required } from './field-errors';
import { isDNS1123Subdomain } from './names';

/** A ResourceSlice names its driver, a DNS subdomain (the reference reports both when it is empty). */
export function validateResourceSlice(object: KubeObject): FieldError[] {
  const driver = ((object.spec ?? {}) as { driver?: unknown }).driver;
  const path = FieldPath.root('spec').child('driver');
  const value = typeof driver === 'string' ? driver : '';
  const errors: FieldError[] = value === '' ? [required(path)] : [];
  return [...errors, ...isDNS1123Subdomain(value).map((message) => invalid(path, value, message))];
}
