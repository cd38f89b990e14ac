/**
 * The param objects a binding hands its policy, as the reference collects them: none needed
 * when the policy has no paramKind or the binding no paramRef (one evaluation with null
 * `params`); otherwise the object named, or every object the selector matches, read from the
 * param kind's watch cache. A namespaced param kind is read in paramRef.namespace, else in the
 * request's namespace (a cluster-scoped request cannot use one), and converted to the
 * paramKind's version. No param found: no evaluation with `Allow`, a configuration error with
 * `Deny`.
 */
import type { ObjectStorage } from '../../../storage/objects/types';
import { getCached } from '../lookup';
import { selectorMatches } from './matching';
import type { ParamKind, ParamRef } from '../../../api/admissionregistration';
import { EVERYTHING } from '../../../storage/objects/types';
import type { ResourceType } from '../../registry/types';
import { convertObject } from '../webhook/versions';

import type { KubeObject } from '../../../api/objects';
/** The served kind a paramKind names: its type and cache; undefined when it is not served. */
export type ParamKindLookup = (gvk: {
  group: string;
  version: string;
  kind: string;
}) => { readonly type: ResourceType; readonly storage: ObjectStorage } | undefined;

export type CollectedParams =
  | { readonly ok: true; readonly params: ReadonlyArray<Readonly<Record<string, unknown>> | null> }
  /** A configuration error: the policy's failurePolicy decides what it does to the request. */
  | { readonly ok: false; readonly scope: 'policy' | 'binding'; readonly error: string };

function groupVersionOf(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Collects the params of a validating or mutating policy's binding (both carry paramKind and paramRef alike). */
export async function collectParams(
  policy: { readonly spec: { readonly paramKind?: ParamKind } },
  binding: { readonly spec: { readonly paramRef?: ParamRef } },
  requestNamespace: string,
  lookup: ParamKindLookup,
): Promise<CollectedParams> {
  const paramKind = policy.spec.paramKind;
  const paramRef = binding.spec.paramRef;
  if (!paramKind) return { ok: true, params: [null] };
  const gvk = { ...groupVersionOf(paramKind.apiVersion ?? ''), kind: paramKind.kind ?? '' };
  const served = lookup(gvk);
  if (served === undefined) {
    const shown = `${gvk.group === '' ? '' : `${gvk.group}/`}${gvk.version}, Kind=${gvk.kind}`;
    return { ok: false, scope: 'policy', error: `failed to find resource referenced by paramKind: '${shown}'` };
  }
  if (!paramRef) return { ok: true, params: [null] };

  let namespace: string | undefined;
  if (served.type.namespaced) {
    namespace = paramRef.namespace || requestNamespace;
    if (!namespace)
      return {
        ok: false,
        scope: 'binding',
        error: 'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources',
      };
  }
  let params: KubeObject[] = [];
  if (paramRef.name) {
    const found = await getCached(served.storage, paramRef.name, namespace);
    if (found !== undefined) params = [found];
  } else {
    const listed = await served.storage.list(namespace === undefined ? {} : { namespace }, {
      resourceVersion: '0',
      predicate: EVERYTHING,
    });
    params = listed.items.filter((item) => selectorMatches(paramRef.selector ?? {}, item.metadata.labels ?? {}));
  }
  // The caches hold the storage version; expressions see the paramKind's.
  if (params.length > 0)
    return { ok: true, params: await Promise.all(params.map((param) => convertObject(served.type, param, gvk))) };
  if (paramRef.parameterNotFoundAction !== 'Allow') {
    return {
      ok: false,
      scope: 'binding',
      error: 'no params found for policy binding with `Deny` parameterNotFoundAction',
    };
  }
  return { ok: true, params: [] };
}
