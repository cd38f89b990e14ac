/**
 * Admin access to devices (a claim request with `adminAccess: true`, or an allocation granting
 * it) lets a workload reach devices in use by others, so the reference grants it only in
 * namespaces labelled `resource.kubernetes.io/admin-access: "true"`; its claim and template
 * strategies read the namespace when a write asks for it. Here that check is a store hook of
 * ResourceClaims and ResourceClaimTemplates, run before the object is stored. The spec and a
 * set allocation are immutable, so a write is checked only when it brings admin access anew.
 */
import { ObjectError } from '../../../storage/errors';
import type { ObjectStorage } from '../../../storage/objects/types';
import type { KubeObject } from '../../../api/objects';
import { invalid } from '../../status/catalogue';
import { FieldPath, forbidden } from '../../status/field-errors';
import { FINISH_NOTHING, type FinishWrite, type StoreHooks } from '../store/hooks';

export const ADMIN_ACCESS_LABEL = 'resource.kubernetes.io/admin-access';

type Json = Record<string, unknown>;

/** The index of the first request (or allocation result) that asks for admin access. */
function firstAdminRequest(items: unknown, adminAccessOf: (item: Json) => unknown): number {
  if (!Array.isArray(items)) return -1;
  return items.findIndex((item) => adminAccessOf((item ?? {}) as Json) === true);
}

function requestsOf(claimSpec: unknown): unknown {
  return ((claimSpec as Json | undefined)?.devices as Json | undefined)?.requests;
}

function resultsOf(claim: KubeObject | undefined): unknown {
  const allocation = (claim?.status as Json | undefined)?.allocation as Json | undefined;
  return (allocation?.devices as Json | undefined)?.results;
}

const exactAdminAccess = (request: Json) => (request.exactly as Json | undefined)?.adminAccess;
const resultAdminAccess = (result: Json) => result.adminAccess;

/** Where a write first asks for admin access it did not have, if it does. */
function adminAccessPath(kind: 'ResourceClaim' | 'ResourceClaimTemplate', object: KubeObject, old?: KubeObject) {
  if (old === undefined) {
    const spec = kind === 'ResourceClaim' ? object.spec : (object.spec as Json | undefined)?.spec;
    const index = firstAdminRequest(requestsOf(spec), exactAdminAccess);
    // The reference names the claim's path for templates too.
    if (index >= 0) return FieldPath.root('spec', 'devices', 'requests').index(index).child('adminAccess');
  }
  if (kind === 'ResourceClaim' && firstAdminRequest(resultsOf(old), resultAdminAccess) < 0) {
    const index = firstAdminRequest(resultsOf(object), resultAdminAccess);
    if (index >= 0)
      return FieldPath.root('status', 'allocation', 'devices', 'results').index(index).child('adminAccess');
  }
  return undefined;
}

export function deviceAdminAccessHooks(options: {
  readonly kind: 'ResourceClaim' | 'ResourceClaimTemplate';
  readonly namespaces: ObjectStorage;
}): StoreHooks {
  const check = async (object: KubeObject, old?: KubeObject): Promise<FinishWrite> => {
    const path = adminAccessPath(options.kind, object, old);
    if (path === undefined) return FINISH_NOTHING;
    const name = object.metadata.namespace ?? '';
    const namespace = await options.namespaces.get({ name }).catch((error: unknown) => {
      // A missing namespace holds no label (namespace admission refuses the write before this).
      if (error instanceof ObjectError && error.reason === 'NotFound') return undefined;
      throw error;
    });
    if (namespace?.metadata.labels?.[ADMIN_ACCESS_LABEL] === 'true') return FINISH_NOTHING;
    throw invalid({ group: 'resource.k8s.io', kind: options.kind }, object.metadata.name ?? '', [
      forbidden(
        path,
        `admin access to devices requires the \`${ADMIN_ACCESS_LABEL}: true\` label on the containing namespace`,
      ),
    ]);
  };
  return {
    beginCreate: (object) => check(object),
    beginUpdate: (object, old) => check(object, old),
    beginStatusUpdate: (object, old) => check(object, old),
  };
}
