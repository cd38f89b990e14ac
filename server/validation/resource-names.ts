/**
 * Names of compute resources (`cpu`, `hugepages-2Mi`, `example.com/gpu`) in resource lists,
 * after the reference's validateResourceName family: a name without a domain must be one the
 * reference knows, and each place a list appears narrows the set further.
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid, notSupported } from '../status/field-errors';
import { isQualifiedName } from './names';

/** Every name without a domain that some resource list accepts (quota names among them). */
const STANDARD_RESOURCES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);
const POD_LEVEL_RESOURCES = ['cpu', 'memory'];
/** What names a huge page size's resource (`hugepages-2Mi`), here and wherever resources are counted. */
export const HUGE_PAGES_PREFIX = 'hugepages-';
/** What the reference names as supported at the pod level: the huge pages by their prefix, sorted in. */
const POD_LEVEL_SUPPORTED = ['cpu', HUGE_PAGES_PREFIX, 'memory'];

export function isHugePages(name: string): boolean {
  return name.startsWith(HUGE_PAGES_PREFIX);
}

function hasDomain(name: string): boolean {
  return name.includes('/');
}

/** Any resource list: a qualified name, and a known one unless it has a domain. */
export function validateResourceName(name: string, path: FieldPath): FieldError[] {
  const messages = isQualifiedName(name);
  if (messages.length > 0) return messages.map((message) => invalid(path, name, message));
  if (
    !hasDomain(name) &&
    !STANDARD_RESOURCES.has(name) &&
    !isHugePages(name) &&
    !name.startsWith(`requests.${HUGE_PAGES_PREFIX}`)
  ) {
    return [invalid(path, name, 'must be a standard resource type or fully qualified')];
  }
  return [];
}

/** A container's (and a pod's overhead) resources: what a container can be given. */
export function validateContainerResourceName(name: string, path: FieldPath): FieldError[] {
  const errors = validateResourceName(name, path);
  if (!hasDomain(name)) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name))
      errors.push(invalid(path, name, 'must be a standard resource for containers'));
  } else if (!name.includes('kubernetes.io/') && isQualifiedName(`requests.${name}`).length > 0) {
    errors.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return errors;
}

/** Pod-level resources: CPU, memory and huge pages only. */
export function validatePodResourceName(name: string, path: FieldPath): FieldError[] {
  const errors = validateResourceName(name, path);
  if (errors.length > 0) return errors;
  return POD_LEVEL_RESOURCES.includes(name) || isHugePages(name) ? [] : [notSupported(path, name, POD_LEVEL_SUPPORTED)];
}
