/**
 * The claims of a service-account token, as the reference mints them: `iss`, `sub`
 * (`system:serviceaccount:<ns>:<name>`), `aud`, `exp`, `iat`, `nbf`, `jti`, and the private
 * `kubernetes.io` claim naming the namespace, the account and what the token is bound to (a
 * pod, with its node, a secret, or a node), plus `warnafter` for the kubelet's extended tokens.
 * Keys are written in the order Go's encoder sorts them.
 */
import { SignJWT } from 'jose';
import type { SigningKey } from './keys';
import { serviceAccountUsername } from './names';

export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

export interface KubernetesClaim {
  namespace: string;
  node?: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  serviceaccount: ObjectRef;
  warnafter?: number;
}

export interface ServiceAccountClaims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  jti: string;
  'kubernetes.io': KubernetesClaim;
  nbf: number;
  sub: string;
}

export interface ClaimsInput {
  readonly issuer: string;
  readonly audiences: readonly string[];
  readonly serviceAccount: { readonly namespace: string } & ObjectRef;
  readonly expirationSeconds: number;
  /** Seconds after issue from which the kubelet should refresh a token whose lifetime was extended. */
  readonly warnAfterSeconds?: number;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  readonly node?: ObjectRef;
  readonly now: Date;
  readonly id: string;
}

export function serviceAccountClaims(input: ClaimsInput): ServiceAccountClaims {
  const now = Math.floor(input.now.getTime() / 1000);
  // Built field by field so the JSON keys come out in Go's sorted order.
  const kubernetes = { namespace: input.serviceAccount.namespace } as KubernetesClaim;
  if (input.node) kubernetes.node = { name: input.node.name, uid: input.node.uid };
  if (input.pod) kubernetes.pod = { name: input.pod.name, uid: input.pod.uid };
  if (input.secret) kubernetes.secret = { name: input.secret.name, uid: input.secret.uid };
  kubernetes.serviceaccount = { name: input.serviceAccount.name, uid: input.serviceAccount.uid };
  if (input.warnAfterSeconds) kubernetes.warnafter = now + input.warnAfterSeconds;
  return {
    aud: [...input.audiences],
    exp: now + input.expirationSeconds,
    iat: now,
    iss: input.issuer,
    jti: input.id,
    'kubernetes.io': kubernetes,
    nbf: now,
    sub: serviceAccountUsername(input.serviceAccount.namespace, input.serviceAccount.name),
  };
}

/** What turns claims into a token: a key file's private key, or an external signer. */
export interface TokenSigner {
  /** `deadline` (epoch ms): the request's, past which a signer that has not answered is no longer waited for. */
  sign(claims: ServiceAccountClaims, deadline?: number): Promise<string>;
}

export function signClaims(claims: ServiceAccountClaims, key: SigningKey): Promise<string> {
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: key.alg, kid: key.kid }).sign(key.privateKey);
}

export function keySigner(key: SigningKey): TokenSigner {
  return { sign: (claims) => signClaims(claims, key) };
}
