/**
 * The versions of a review object (AdmissionReview, ConversionReview) a webhook says it takes,
 * checked as the reference checks both: unique DNS-1035 labels, and at least one this server
 * sends unless an update keeps a stored webhook that named none such.
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid, required } from '../status/field-errors';
import { isDNS1035Label } from './names';

/** The review versions a 1.34 server sends, sorted as the reference lists them. */
export const ACCEPTED_REVIEW_VERSIONS = ['v1', 'v1beta1'];

export interface ReviewVersionRules {
  readonly requireAccepted: boolean;
  /** The detail of the refusal of an empty list (admission webhooks name the versions, CRDs nothing). */
  readonly requiredDetail: string;
}

export function validateReviewVersions(
  versions: unknown,
  path: FieldPath,
  { requireAccepted, requiredDetail }: ReviewVersionRules,
): FieldError[] {
  const list = Array.isArray(versions) ? (versions as string[]) : [];
  if (list.length === 0) return [required(path, requiredDetail)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((version, i) => {
    if (seen.has(version)) return void errors.push(invalid(path.index(i), version, 'duplicate version'));
    seen.add(version);
    for (const message of isDNS1035Label(version)) errors.push(invalid(path.index(i), version, message));
  });
  if (requireAccepted && !list.some((version) => ACCEPTED_REVIEW_VERSIONS.includes(version)))
    errors.push(invalid(path, list, `must include at least one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`));
  return errors;
}
