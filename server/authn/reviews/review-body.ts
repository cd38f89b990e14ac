/**
 * The checks every review's body gets before its logic runs: a JSON object of the endpoint's
 * kind and version (either may be left out, as the reference's decoder allows).
 */
import { badRequest } from '../../status/catalogue';

export type ReviewBody = Record<string, unknown> & { spec?: Record<string, unknown> };

export function reviewBody(
  body: unknown,
  expected: { readonly kind: string; readonly apiVersion: string },
): ReviewBody {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest(`the object provided is unrecognized (must be of type ${expected.kind})`);
  }
  const object = body as ReviewBody;
  const { kind, apiVersion } = object;
  if (
    (kind !== undefined && kind !== expected.kind) ||
    (apiVersion !== undefined && apiVersion !== expected.apiVersion)
  ) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${expected.kind}): ${String(kind)} ${String(apiVersion)}`,
    );
  }
  // Go decodes a null spec as the zero spec: as if it were left out.
  if ((object as Record<string, unknown>).spec === null) delete object.spec;
  if (
    object.spec !== undefined &&
    (typeof object.spec !== 'object' || object.spec === null || Array.isArray(object.spec))
  ) {
    throw badRequest(`${expected.kind}.spec: expected an object`);
  }
  return object;
}
