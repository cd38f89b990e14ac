/** node.k8s.io rules, with the reference's texts. */
import type { KubeObject } from '../../storage/objects/types';
import type { FieldError } from '../registry/types';
import { FieldPath, invalid } from './field-errors';
import { isDNS1123Label } from './names';

/** A RuntimeClass's handler is a DNS label (an empty one included). */
export function validateRuntimeClass(object: KubeObject): FieldError[] {
  const handler = typeof object.handler === 'string' ? object.handler : '';
  return isDNS1123Label(handler).map((message) => invalid(FieldPath.root('handler'), handler, message));
}
