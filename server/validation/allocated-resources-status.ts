/**
 * The kubelet's health reports of the devices allocated to a container (allocatedResourcesStatus,
 * behind ResourceHealthStatus): each names a resource the container requests or one of its
 * claims, with known health values and no resource reported twice. Ephemeral containers are
 * given no resources, so their statuses may report none.
 */
import type { FieldError } from '../status/field-error';
import { duplicate, forbidden, invalid, notSupported, type FieldPath } from '../status/field-errors';

interface AllocatedResourceStatus {
  name?: string;
  resources?: { resourceID?: string; health?: string }[];
}

interface ContainerStatus {
  name?: string;
  allocatedResourcesStatus?: AllocatedResourceStatus[] | null;
}

interface Container {
  name?: string;
  resources?: { requests?: Record<string, unknown>; claims?: { name?: string; request?: string }[] };
}

const HEALTH_VALUES: readonly string[] = ['Healthy', 'Unhealthy', 'Unknown'];

const CLAIM_PREFIX = 'claim:';

/** A report names a claim as `claim:<claim>` or `claim:<claim>/<request>`, else a requested resource. */
function nameMismatch(name: string, container: Container): string | undefined {
  if (name.startsWith(CLAIM_PREFIX)) {
    const claimed = (container.resources?.claims ?? []).some(
      (claim) => `${CLAIM_PREFIX}${claim.name ?? ''}${claim.request ? `/${claim.request}` : ''}` === name,
    );
    return claimed
      ? undefined
      : "must match one of the container's resource claims in a format 'claim:<claimName>/<request>' or 'claim:<claimName>' if request is empty";
  }
  return Object.hasOwn(container.resources?.requests ?? {}, name)
    ? undefined
    : "must match one of the container's resource requests";
}

export function allocatedResourcesStatusErrors(
  statuses: readonly ContainerStatus[] | undefined,
  path: FieldPath,
  containers: readonly Container[] | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  (statuses ?? []).forEach((status, i) => {
    // A status of a container the spec lacks is let be: the kubelet may report one the spec dropped.
    const container = (containers ?? []).find((c) => c.name === status.name);
    (status.allocatedResourcesStatus ?? []).forEach((report, j) => {
      const at = path.index(i).child('allocatedResourcesStatus').index(j);
      const name = report.name ?? '';
      const mismatch = container === undefined ? undefined : nameMismatch(name, container);
      if (mismatch !== undefined) errors.push(invalid(at.child('name'), name, mismatch));
      const seen = new Set<string>();
      (report.resources ?? []).forEach((resource, k) => {
        const health = resource.health ?? '';
        if (!HEALTH_VALUES.includes(health))
          errors.push(notSupported(at.child('resources').index(k).child('health'), health, HEALTH_VALUES));
        const id = resource.resourceID ?? '';
        if (seen.has(id)) errors.push(duplicate(at.child('resources').index(k).child('resourceID'), id));
        else seen.add(id);
      });
    });
  });
  return errors;
}

export function noAllocatedResourcesStatusErrors(
  statuses: readonly ContainerStatus[] | undefined,
  path: FieldPath,
): FieldError[] {
  return (statuses ?? []).flatMap((status, i) =>
    (status.allocatedResourcesStatus ?? []).length === 0
      ? []
      : [forbidden(path.index(i).child('allocatedResourcesStatus'), 'must not be specified in container status')],
  );
}
