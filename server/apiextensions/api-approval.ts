/**
 * The approval a CRD of a protected community group (k8s.io, kubernetes.io and their
 * subdomains) must carry in its `api-approved.kubernetes.io` annotation: a URL of the approving
 * change, or a reason beginning "unapproved". The reference requires it on create, and on an
 * update only when the annotation's state changes, so that a controller rewriting the spec of
 * an older definition is not refused.
 */
import type { FieldError } from '../registry/types';
import { FieldPath, invalid, required } from '../status/field-errors';
import type { CustomResourceDefinition } from './crd-types';

const ANNOTATION = 'api-approved.kubernetes.io';
const POLICY = 'see https://github.com/kubernetes/enhancements/pull/1111';

type ApprovalState = 'approved' | 'bypassed' | 'missing' | 'invalid';

function isProtectedCommunityGroup(group: string): boolean {
  return ['k8s.io', 'kubernetes.io'].some((domain) => group === domain || group.endsWith(`.${domain}`));
}

/**
 * An absolute URL with a scheme and a host, as Go's url.ParseRequestURI reads one. WHATWG's
 * URL parser would find a host in `https:///x` (it skips the empty authority), Go none.
 */
const APPROVAL_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#\s@]*@)?[^/?#\s@]+/;

function isApprovalURL(text: string): boolean {
  return APPROVAL_URL.test(text);
}

function approvalState(crd: CustomResourceDefinition): ApprovalState {
  const annotation = crd.metadata.annotations?.[ANNOTATION] ?? '';
  if (annotation === '') return 'missing';
  if (annotation.startsWith('unapproved')) return 'bypassed';
  return isApprovalURL(annotation) ? 'approved' : 'invalid';
}

export function validateAPIApproval(
  crd: CustomResourceDefinition,
  previous: CustomResourceDefinition | undefined,
): FieldError[] {
  if (!isProtectedCommunityGroup(crd.spec.group ?? '')) return [];
  const state = approvalState(crd);
  if (previous !== undefined && approvalState(previous) === state) return [];
  const path = FieldPath.root('metadata', 'annotations').key(ANNOTATION);
  if (state === 'missing')
    return [required(path, `protected groups must have approval annotation ${JSON.stringify(ANNOTATION)}, ${POLICY}`)];
  if (state === 'invalid')
    return [
      invalid(
        path,
        crd.metadata.annotations?.[ANNOTATION],
        `protected groups must have approval annotation ${JSON.stringify(ANNOTATION)} with either a URL or a reason starting with "unapproved", ${POLICY}`,
      ),
    ];
  return [];
}
