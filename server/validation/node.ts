/** node.k8s.io rules, with the reference's texts. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../registry/types';
import { FieldPath, immutable, invalid } from '../status/field-errors';
import { isDNS1123Label } from './names';

/** A RuntimeClass's handler is a DNS label (an empty one included). */
export function validateRuntimeClass(object: KubeObject): FieldError[] {
  const handler = typeof object.handler === 'string' ? object.handler : '';
  return isDNS1123Label(handler).map((message) => invalid(FieldPath.root('handler'), handler, message));
}

/** The handler a RuntimeClass names is fixed once made (the reference's 422). */
export function validateRuntimeClassUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  return [
    ...validateRuntimeClass(object),
    ...immutable(FieldPath.root('handler'), object.handler ?? '', old.handler ?? ''),
  ];
}
