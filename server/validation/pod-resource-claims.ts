/**
 * A pod's resource claims (dynamic resource allocation), as the reference judges them: the
 * pod's own list (`spec.resourceClaims`: named, unique, each naming exactly one claim or claim
 * template), what containers and the pod level ask of them (`resources.claims`: a pod claim
 * named, once, whole or by request), and the claims a status reports as made for them (for
 * its claims, and for the extended resources its containers request).
 */
import { goJSONEscaped } from '../../api/go-quote';
import { compareStrings } from '../string-order';
import type { FieldError } from '../status/field-error';
import { duplicate, fieldNotFound, FieldPath, forbidden, GoValue, invalid, required } from '../status/field-errors';
import { isDNS1123Label, isDNS1123Subdomain } from './names';

export interface PodResourceClaim {
  readonly name?: string;
  readonly resourceClaimName?: string | null;
  readonly resourceClaimTemplateName?: string | null;
}

/** An entry of a container's (or the pod level's) `resources.claims`. */
export interface ResourceClaimReference {
  readonly name?: string;
  readonly request?: string;
}

export interface PodResourceClaimStatus {
  readonly name?: string;
  readonly resourceClaimName?: string | null;
}

const isSet = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/**
 * The names containers may refer to: every name the pod's list gives, invalid or repeated ones
 * too, since the list's own errors report those.
 */
export function podResourceClaimNames(claims: readonly PodResourceClaim[] | null | undefined): ReadonlySet<string> {
  return new Set((claims ?? []).map((claim) => claim.name ?? '').filter((name) => name !== ''));
}

/** The claim as Go's encoding/json writes the reference's internal struct, which has no JSON tags. */
function goPodResourceClaim(claim: PodResourceClaim): GoValue {
  const internal = {
    Name: claim.name ?? '',
    ResourceClaimName: claim.resourceClaimName ?? null,
    ResourceClaimTemplateName: claim.resourceClaimTemplateName ?? null,
  };
  return new GoValue(goJSONEscaped(JSON.stringify(internal)));
}

/**
 * `staticPod`: the pod is a mirror pod, whose kubelet runs it from a file and allocates nothing
 * for it; each of its claims is refused alone, at the whole object, and judged no further.
 * Templates are never static: their annotations are not a pod's yet.
 */
export function podResourceClaimErrors(
  claims: readonly PodResourceClaim[] | null | undefined,
  { staticPod }: { readonly staticPod: boolean },
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (claims ?? []).forEach((claim, i) => {
    if (staticPod) {
      errors.push(forbidden(FieldPath.wholeObject(), 'static pods do not support resource claims'));
      return;
    }
    const at = path.index(i);
    const name = claim.name ?? '';
    if (name === '') errors.push(required(at.child('name')));
    else if (seen.has(name)) errors.push(duplicate(at.child('name'), name));
    else {
      for (const message of isDNS1123Label(name)) errors.push(invalid(at.child('name'), name, message));
      seen.add(name);
    }
    const { resourceClaimName, resourceClaimTemplateName } = claim;
    if (isSet(resourceClaimName) && isSet(resourceClaimTemplateName))
      errors.push(
        invalid(
          at,
          goPodResourceClaim(claim),
          'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified',
        ),
      );
    if (!isSet(resourceClaimName) && !isSet(resourceClaimTemplateName))
      errors.push(
        invalid(at, goPodResourceClaim(claim), 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'),
      );
    if (isSet(resourceClaimName))
      for (const message of isDNS1123Subdomain(resourceClaimName))
        errors.push(invalid(at.child('resourceClaimName'), resourceClaimName, message));
    if (isSet(resourceClaimTemplateName))
      for (const message of isDNS1123Subdomain(resourceClaimTemplateName))
        errors.push(invalid(at.child('resourceClaimTemplateName'), resourceClaimTemplateName, message));
  });
  return errors;
}

/** Whether a seen key is `<claimName>/<request>`: a request of that claim. */
function isRequestOf(key: string, claimName: string): boolean {
  const slash = key.indexOf('/');
  return slash >= 0 && key.slice(0, slash) === claimName;
}

/**
 * What one container (or the pod level) asks of the pod's claims: each entry names a pod claim,
 * and asks for it whole or for one request of it, never twice and never both. A repeat is told
 * by the claim's name where the claim (or a request of it) was asked for before, by
 * `<claim>/<request>` where the same request was.
 */
export function resourceClaimReferenceErrors(
  references: readonly ResourceClaimReference[] | null | undefined,
  podClaimNames: ReadonlySet<string>,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (references ?? []).forEach((reference, i) => {
    const at = path.index(i);
    const name = reference.name ?? '';
    if (name === '') {
      errors.push(required(at));
      return;
    }
    const request = reference.request ?? '';
    if (seen.has(name)) errors.push(duplicate(at, name));
    else {
      if (request !== '')
        for (const message of isDNS1123Label(request)) errors.push(invalid(at.child('request'), request, message));
      const key = request === '' ? name : `${name}/${request}`;
      if (seen.has(key)) errors.push(duplicate(at, key));
      else if (request === '')
        // The whole claim, after requests of it: reported once for each request asked before.
        for (const earlier of seen) if (isRequestOf(earlier, name)) errors.push(duplicate(at, name));
      seen.add(key);
    }
    if (!podClaimNames.has(name)) {
      const names = [...podClaimNames].sort(compareStrings);
      const detail = `must be one of the names in pod.spec.resourceClaims${names.length === 0 ? ' which is empty' : `: ${names.join(', ')}`}`;
      errors.push(fieldNotFound(at, name, detail));
    }
  });
  return errors;
}

/**
 * The claims a status reports as made for the pod: each for one of the pod's claims, once, and
 * named as a claim is. The name's content needs no check of its own: one that matches a pod
 * claim's is valid. Every error is reported at the entry's `name`, the claim's name's too.
 */
export function podResourceClaimStatusErrors(
  statuses: readonly PodResourceClaimStatus[] | null | undefined,
  podClaims: readonly PodResourceClaim[] | null | undefined,
  path: FieldPath,
): FieldError[] {
  const podClaimNamesListed = new Set((podClaims ?? []).map((claim) => claim.name ?? ''));
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (statuses ?? []).forEach((status, i) => {
    const at = path.index(i).child('name');
    const name = status.name ?? '';
    if (!podClaimNamesListed.has(name))
      errors.push(invalid(at, name, 'must match the name of an entry in `spec.resourceClaims`'));
    if (seen.has(name)) errors.push(duplicate(at, name));
    else seen.add(name);
    if (isSet(status.resourceClaimName))
      for (const message of isDNS1123Subdomain(status.resourceClaimName))
        errors.push(invalid(at, status.resourceClaimName, message));
  });
  return errors;
}

export interface ContainerRequestMapping {
  readonly containerName?: string;
  readonly resourceName?: string;
  readonly requestName?: string;
}

export interface PodExtendedResourceClaimStatus {
  readonly requestMappings?: readonly ContainerRequestMapping[] | null;
  readonly resourceClaimName?: string;
}

interface ContainerRequests {
  readonly name?: string;
  readonly resources?: { readonly requests?: Record<string, unknown> | null } | null;
}

/**
 * The claim the scheduler made for the extended resources a pod's containers request
 * (DRAExtendedResource): mappings from a container (init or regular, a regular one's requests
 * standing where both share a name) and a resource it requests to a request of the claim, each
 * pair once, and the claim's name. A request name's errors are reported at the status's
 * `requestName`, without the mapping's index, as the reference writes them.
 */
export function podExtendedResourceClaimStatusErrors(
  status: PodExtendedResourceClaimStatus | null | undefined,
  spec: { readonly initContainers?: readonly ContainerRequests[]; readonly containers?: readonly ContainerRequests[] },
  path: FieldPath,
): FieldError[] {
  if (!isSet(status)) return [];
  const containers = new Map(
    [...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((container) => [container.name ?? '', container]),
  );
  const errors: FieldError[] = [];
  const mappingsPath = path.child('requestMappings');
  const mappings = status.requestMappings ?? [];
  if (mappings.length === 0) errors.push(required(mappingsPath, 'at least one request mapping is required'));
  const seen = new Set<string>();
  mappings.forEach((mapping, i) => {
    const at = mappingsPath.index(i);
    const containerName = mapping.containerName ?? '';
    const resourceName = mapping.resourceName ?? '';
    const container = containers.get(containerName);
    if (container === undefined)
      errors.push(
        invalid(
          at.child('containerName'),
          containerName,
          'must match the name of an entry in spec.initContainers.name or spec.containers.name',
        ),
      );
    else if (!Object.hasOwn(container.resources?.requests ?? {}, resourceName))
      errors.push(
        invalid(
          at.child('resourceName'),
          resourceName,
          'must match the extended resource name of an entry in spec.initContainers.resources.requests or spec.containers.resources.requests',
        ),
      );
    const requestName = mapping.requestName ?? '';
    for (const message of isDNS1123Label(requestName))
      errors.push(invalid(path.child('requestName'), requestName, message));
    const pair = JSON.stringify([containerName, resourceName]);
    if (seen.has(pair)) {
      errors.push(duplicate(at.child('containerName'), containerName));
      errors.push(duplicate(at.child('resourceName'), resourceName));
    }
    seen.add(pair);
  });
  const claimName = status.resourceClaimName ?? '';
  if (claimName === '') errors.push(required(path.child('resourceClaimName')));
  else
    for (const message of isDNS1123Subdomain(claimName))
      errors.push(invalid(path.child('resourceClaimName'), claimName, message));
  return errors;
}
