/**
 * The resource.k8s.io fields behind feature gates in 1.34, dropped as the reference's DRA
 * strategies drop them (pkg/registry/resource/*\/strategy.go). They work on the v1 shape, the
 * one objects are kept in.
 */
import type { KubeObject } from '../../../api/objects';
import type { Json } from '../defaults/fill';
import { dropDisabledFieldsOf, isSet, listAt, objectAt, type GatedFields } from './gated-fields';

/** Where a kind keeps its claim spec: a ResourceClaim at `spec`, a template at `spec.spec`. */
type ClaimSpecAt = 'spec' | 'spec.spec';

function requests(object: KubeObject, at: ClaimSpecAt): Json[] {
  return listAt(object, `${at}.devices.requests`);
}

/** The `exactly` of each request that has one. */
function exactRequests(object: KubeObject, at: ClaimSpecAt): Json[] {
  return requests(object, at).flatMap((request): Json[] => {
    const exactly = objectAt(request, 'exactly');
    return exactly === undefined ? [] : [exactly];
  });
}

function allocationResults(claim: KubeObject): Json[] {
  return listAt(claim, 'status.allocation.devices.results');
}

/** Admin access to devices: a request's `adminAccess`, and (claims) the allocation's record of it. */
function adminAccess(at: ClaimSpecAt): GatedFields {
  return {
    gates: ['DRAAdminAccess'],
    inUse: (object) =>
      exactRequests(object, at).some((exactly) => isSet(exactly.adminAccess)) ||
      (at === 'spec' && allocationResults(object).some((result) => isSet(result.adminAccess))),
    drop: (object) => {
      for (const exactly of exactRequests(object, at)) delete exactly.adminAccess;
      if (at === 'spec') for (const result of allocationResults(object)) delete result.adminAccess;
    },
  };
}

export const dropDisabledResourceClaimFields = dropDisabledFieldsOf([adminAccess('spec')]);
export const dropDisabledResourceClaimTemplateFields = dropDisabledFieldsOf([adminAccess('spec.spec')]);
