/**
 * Service-account tokens: JWTs signed by one of the configured keys (the key files', or an
 * external signer's), from one of the
 * service-account issuers. A JWT from another issuer (or anything else) is not this method's
 * and passes on to the next. Checks follow the reference's order: signature, issuer,
 * audiences, lifetime (one minute of leeway, as go-jose), then, under
 * `--service-account-lookup`, that the account and the bound pod, secret or node still exist
 * with the UIDs the token names.
 */
import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose';
import type { KubeObject } from '../../../api/objects';
import { goQuoteSlice } from '../../../api/go-quote';
import { intersectAudiences } from '../audiences';
import type { AuthenticationResult, TokenAuthenticator } from '../types';
import { CREDENTIAL_ID_EXTRA, type UserInfo } from '../../../api/user-info';
import type { KubernetesClaim, ServiceAccountClaims } from './claims';
import type { VerifyingKey } from './keys';
import type { ServiceAccountKeySource } from './key-source';
import { serviceAccountGroups, serviceAccountUsername } from './names';
import { goAggregate } from '../../../api/go-json-syntax';

const LEEWAY_SECONDS = 60;

/** Reads an object for the lookup; undefined when it does not exist. */
export type ObjectLookup = (
  resource: 'serviceaccounts' | 'pods' | 'secrets' | 'nodes',
  namespace: string,
  name: string,
) => Promise<KubeObject | undefined>;

export interface ServiceAccountAuthenticatorOptions {
  readonly issuers: readonly string[];
  readonly keys: ServiceAccountKeySource;
  /** The API server's audiences: what a token without `aud` is taken to be for. */
  readonly apiAudiences: readonly string[];
  /** Present with `--service-account-lookup`: tokens of deleted objects are refused. */
  readonly lookup?: ObjectLookup;
  readonly now?: () => Date;
}

export function serviceAccountAuthenticator(options: ServiceAccountAuthenticatorOptions): TokenAuthenticator {
  const now = options.now ?? (() => new Date());
  return {
    async authenticateToken(token, requested): Promise<AuthenticationResult> {
      let unverified: Record<string, unknown>;
      try {
        unverified = decodeJwt(token);
      } catch {
        return undefined;
      }
      if (typeof unverified.iss !== 'string' || !options.issuers.includes(unverified.iss)) return undefined;
      let kid: unknown;
      try {
        kid = decodeProtectedHeader(token).kid;
      } catch {
        return undefined;
      }
      // The keys of the header's key id, as the reference picks them; none named: every key.
      const keys = await options.keys.keysFor(typeof kid === 'string' ? kid : '');
      if (keys.length === 0) return { error: 'invalid signature, no keys found' };
      const claims = await verifiedClaims(token, keys);
      if ('error' in claims) return claims;
      const tokenAudiences = audiencesOf(claims.aud);
      const effectiveTokenAudiences = tokenAudiences.length > 0 ? tokenAudiences : [...options.apiAudiences];
      const wanted = requested.length > 0 ? requested : options.apiAudiences;
      const audiences = intersectAudiences(effectiveTokenAudiences, wanted);
      if (audiences.length === 0 && options.apiAudiences.length > 0) {
        return {
          error: `token audiences ${goQuoteSlice(effectiveTokenAudiences)} is invalid for the target audiences ${goQuoteSlice(wanted)}`,
        };
      }
      const seconds = Math.floor(now().getTime() / 1000);
      if (typeof claims.exp === 'number' && seconds > claims.exp + LEEWAY_SECONDS)
        return { error: 'service account token has expired' };
      if (
        (typeof claims.nbf === 'number' && seconds + LEEWAY_SECONDS < claims.nbf) ||
        (typeof claims.iat === 'number' && seconds + LEEWAY_SECONDS < claims.iat)
      ) {
        return { error: 'service account token could not be validated' };
      }
      const kubernetes = claims['kubernetes.io'];
      if (!isKubernetesClaim(kubernetes))
        return { error: 'service account token claims could not be validated due to unexpected private claim' };
      if (options.lookup) {
        const problem = await lookupProblem(options.lookup, kubernetes, now());
        if (problem) return { error: problem };
      }
      return { user: userOf(kubernetes, typeof claims.jti === 'string' ? claims.jti : ''), audiences };
    },
  };
}

async function verifiedClaims(
  token: string,
  keys: readonly VerifyingKey[],
): Promise<Partial<ServiceAccountClaims> | { error: string }> {
  const errors: string[] = [];
  for (const key of keys) {
    try {
      // Only the key's own algorithm: never `none`, never HS256 keyed with the public key.
      const { payload } = await compactVerify(token, key.key, { algorithms: [key.alg] });
      return JSON.parse(new TextDecoder().decode(payload)) as Partial<ServiceAccountClaims>;
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return { error: goAggregate(errors) };
}

function audiencesOf(aud: unknown): string[] {
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

function isRef(value: unknown): value is { name: string; uid: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { uid?: unknown }).uid === 'string'
  );
}

function isKubernetesClaim(value: unknown): value is KubernetesClaim {
  if (typeof value !== 'object' || value === null) return false;
  const claim = value as Partial<KubernetesClaim>;
  return (
    typeof claim.namespace === 'string' &&
    claim.namespace !== '' &&
    isRef(claim.serviceaccount) &&
    claim.serviceaccount.name !== ''
  );
}

async function lookupProblem(lookup: ObjectLookup, claim: KubernetesClaim, now: Date): Promise<string | undefined> {
  // Objects deleted less than the leeway ago still count, as in the reference.
  const deletedBefore = now.getTime() - LEEWAY_SECONDS * 1000;
  const deleted = (object: KubeObject) =>
    object.metadata.deletionTimestamp !== undefined &&
    Date.parse(String(object.metadata.deletionTimestamp)) < deletedBefore;
  const account = await lookup('serviceaccounts', claim.namespace, claim.serviceaccount.name);
  if (account === undefined) return `serviceaccounts "${claim.serviceaccount.name}" not found`;
  if (deleted(account)) return `service account ${claim.namespace}/${claim.serviceaccount.name} has been deleted`;
  if (account.metadata.uid !== claim.serviceaccount.uid)
    return `service account UID (${String(account.metadata.uid)}) does not match claim (${claim.serviceaccount.uid})`;
  const bound: ['secrets' | 'pods' | 'nodes', string, { name: string; uid: string } | undefined][] = [
    ['secrets', claim.namespace, claim.secret],
    ['pods', claim.namespace, claim.pod],
    ['nodes', '', claim.node],
  ];
  for (const [resource, namespace, ref] of bound) {
    if (ref === undefined) continue;
    // A pod's node is informational: the pod's own binding decides.
    if (resource === 'nodes' && claim.pod !== undefined) continue;
    const object = await lookup(resource, namespace, ref.name);
    const kind = resource.slice(0, -1);
    if (object === undefined) return `${resource} "${ref.name}" not found`;
    if (deleted(object)) return `${kind} ${ref.name} has been deleted`;
    if (object.metadata.uid !== ref.uid)
      return `${kind} UID (${String(object.metadata.uid)}) does not match service account ${kind} ref claim (${ref.uid})`;
  }
  return undefined;
}

function userOf(claim: KubernetesClaim, jti: string): UserInfo {
  const extra: Record<string, string[]> = {};
  if (jti !== '') extra[CREDENTIAL_ID_EXTRA] = [`JTI=${jti}`];
  if (claim.node) {
    extra['authentication.kubernetes.io/node-name'] = [claim.node.name];
    extra['authentication.kubernetes.io/node-uid'] = [claim.node.uid];
  }
  if (claim.pod) {
    extra['authentication.kubernetes.io/pod-name'] = [claim.pod.name];
    extra['authentication.kubernetes.io/pod-uid'] = [claim.pod.uid];
  }
  return {
    name: serviceAccountUsername(claim.namespace, claim.serviceaccount.name),
    uid: claim.serviceaccount.uid,
    groups: serviceAccountGroups(claim.namespace),
    extra,
  };
}
