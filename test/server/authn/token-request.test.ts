import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import type { KubeObject } from '../../../api/objects';
import { serviceAccountAuthenticator, type ObjectLookup } from '../../../server/authn/service-account/authenticator';
import { keySigner } from '../../../server/authn/service-account/claims';
import { staticKeySource } from '../../../server/authn/service-account/key-source';
import { parseSigningKey } from '../../../server/authn/service-account/keys';
import { EXTENDED_EXPIRATION_SECONDS, tokenRequest } from '../../../server/authn/service-account/token-request';
import { StatusError } from '../../../server/status/status-error';

const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const signingKey = parseSigningKey(pem, 'test');
const ISSUER = 'https://issuer.test';
const objects = new Map<string, KubeObject>([
  ['serviceaccounts/ns/builder', { metadata: { name: 'builder', namespace: 'ns', uid: 'sa-uid' } }],
  [
    'pods/ns/worker',
    {
      metadata: { name: 'worker', namespace: 'ns', uid: 'pod-uid' },
      spec: { serviceAccountName: 'builder', nodeName: 'node-1' },
    },
  ],
  ['nodes//node-1', { metadata: { name: 'node-1', uid: 'node-uid' } }],
]);
const lookup: ObjectLookup = async (resource, namespace, name) => objects.get(`${resource}/${namespace}/${name}`);
const now = new Date('2026-01-01T00:00:00Z');
const deps = {
  lookup,
  signer: keySigner(signingKey),
  maxExtendedExpirationSeconds: EXTENDED_EXPIRATION_SECONDS,
  issuer: ISSUER,
  apiAudiences: [ISSUER],
  maxExpirationSeconds: 0,
  extendExpiration: true,
  rejectUIDMismatch: true,
  now: () => now,
  newId: () => 'jti-1',
};

test('with --service-account-extend-token-expiration=false the kubelet token lives its hour, without warnafter', async () => {
  const answer = await tokenRequest(
    {
      body: {
        spec: {
          expirationSeconds: 3607,
          boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: 'pod-uid' },
        },
      },
      namespace: 'ns',
      name: 'builder',
    },
    { ...deps, extendExpiration: false },
  );
  const claims = decodeJwt(answer.status.token);
  expect(claims.exp).toBe(now.getTime() / 1000 + 3607);
  expect((claims['kubernetes.io'] as Record<string, unknown>).warnafter).toBeUndefined();
});

test("an external signer's shorter lifetime caps the extension of the kubelet's token", async () => {
  const answer = await tokenRequest(
    {
      body: {
        spec: {
          expirationSeconds: 3607,
          boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: 'pod-uid' },
        },
      },
      namespace: 'ns',
      name: 'builder',
    },
    { ...deps, maxExpirationSeconds: 86_400, maxExtendedExpirationSeconds: 86_400 },
  );
  const claims = decodeJwt(answer.status.token);
  expect(claims.exp).toBe(now.getTime() / 1000 + 86_400);
  expect((claims['kubernetes.io'] as Record<string, unknown>).warnafter).toBe(now.getTime() / 1000 + 3607);
  expect(answer.spec.expirationSeconds).toBe(3607);
});

test('a pod-bound kubelet token: extended to a year with warnafter, naming the pod and its node', async () => {
  const answer = await tokenRequest(
    {
      body: {
        spec: {
          expirationSeconds: 3607,
          boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: 'pod-uid' },
        },
      },
      namespace: 'ns',
      name: 'builder',
    },
    deps,
  );
  expect(answer.status.expirationTimestamp).toBe('2026-01-01T01:00:07Z');
  const claims = decodeJwt(answer.status.token);
  const iat = now.getTime() / 1000;
  expect(claims).toEqual({
    aud: [ISSUER],
    exp: iat + 365 * 24 * 3600,
    iat,
    iss: ISSUER,
    jti: 'jti-1',
    'kubernetes.io': {
      namespace: 'ns',
      node: { name: 'node-1', uid: 'node-uid' },
      pod: { name: 'worker', uid: 'pod-uid' },
      serviceaccount: { name: 'builder', uid: 'sa-uid' },
      warnafter: iat + 3607,
    },
    nbf: iat,
    sub: 'system:serviceaccount:ns:builder',
  });
  // ES256 with the key's id, and the authenticator takes it back with the pod in extra.
  const verified = await serviceAccountAuthenticator({
    issuers: [ISSUER],
    keys: staticKeySource([signingKey]),
    apiAudiences: [ISSUER],
    lookup,
    now: () => now,
  }).authenticateToken(answer.status.token, []);
  expect(verified).toEqual({
    user: {
      name: 'system:serviceaccount:ns:builder',
      uid: 'sa-uid',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
      extra: {
        'authentication.kubernetes.io/credential-id': ['JTI=jti-1'],
        'authentication.kubernetes.io/node-name': ['node-1'],
        'authentication.kubernetes.io/node-uid': ['node-uid'],
        'authentication.kubernetes.io/pod-name': ['worker'],
        'authentication.kubernetes.io/pod-uid': ['pod-uid'],
      },
    },
    audiences: [ISSUER],
  });
});

test("the authenticator verifies with the keys of the token's kid, as the reference picks them", async () => {
  const answer = await tokenRequest({ body: {}, namespace: 'ns', name: 'builder' }, deps);
  const [, payload, signature] = answer.status.token.split('.');
  const withKid = (kid: string) =>
    `${Buffer.from(JSON.stringify({ alg: 'ES256', kid })).toString('base64url')}.${payload}.${signature}`;
  const authenticator = serviceAccountAuthenticator({
    issuers: [ISSUER],
    keys: staticKeySource([signingKey]),
    apiAudiences: [ISSUER],
    now: () => now,
  });
  // A key id no key has: no key is tried, whatever the signature.
  expect(await authenticator.authenticateToken(withKid('another-key'), [])).toEqual({
    error: 'invalid signature, no keys found',
  });
  expect(await authenticator.authenticateToken(answer.status.token, [])).toMatchObject({
    user: { name: 'system:serviceaccount:ns:builder' },
  });
});

test('refusals: short lifetimes, a stale bound UID, an unknown kind, a name that differs', async () => {
  const ask = (body: unknown) => tokenRequest({ body, namespace: 'ns', name: 'builder' }, deps);
  await expect(ask({ spec: { expirationSeconds: 599 } })).rejects.toThrow(
    'spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
  );
  await expect(
    ask({ spec: { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: 'old' } } }),
  ).rejects.toThrow(
    'the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated',
  );
  await expect(
    ask({ spec: { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'x' } } }),
  ).rejects.toThrow('cannot bind token to object of type apps/v1, Kind=Deployment');
  // The core group prints empty before the slash, as Go's GroupVersionKind does (asked of 1.34.4).
  await expect(ask({ spec: { boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } } })).rejects.toThrow(
    'cannot bind token to object of type /v1, Kind=ConfigMap',
  );
  await expect(ask({ metadata: { name: 'other' } })).rejects.toThrow(
    'metadata.name: Invalid value: "other": must match the service account name if specified',
  );
  const warnings: string[] = [];
  const capped = await tokenRequest(
    {
      body: { spec: { expirationSeconds: 7200 } },
      namespace: 'ns',
      name: 'builder',
      warn: (message) => warnings.push(message),
    },
    { ...deps, maxExpirationSeconds: 3600 },
  );
  expect(capped.spec.expirationSeconds).toBe(3600);
  expect(warnings).toEqual(['requested expiration of 7200 seconds shortened to 3600 seconds']);
});

test('audiences null, as Go reads a nil list, means the API server audiences; a non-list is refused', async () => {
  const ask = (audiences: unknown) =>
    tokenRequest({ body: { spec: { audiences } }, namespace: 'ns', name: 'builder' }, deps);
  const answer = await ask(null);
  expect(decodeJwt(answer.status.token).aud).toEqual([ISSUER]);
  await expect(ask('api')).rejects.toMatchObject({ status: { code: 400 } });
});

test("TokenRequestServiceAccountUIDValidation: a request naming another account's UID is refused, or noted with the gate off", async () => {
  const body = { metadata: { uid: 'other-uid' } };
  const mismatch = 'the UID in the token request (other-uid) does not match the UID of the service account (sa-uid)';
  await expect(tokenRequest({ body, namespace: 'ns', name: 'builder' }, deps)).rejects.toMatchObject({
    status: {
      code: 409,
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on TokenRequest.authentication.k8s.io "builder": ${mismatch}`,
      details: { name: 'builder', group: 'authentication.k8s.io', kind: 'TokenRequest' },
    },
  });
  const annotations: Record<string, string> = {};
  const answer = await tokenRequest(
    { body, namespace: 'ns', name: 'builder', annotateAudit: (key, value) => (annotations[key] = value) },
    { ...deps, rejectUIDMismatch: false },
  );
  expect(answer.status.token).not.toBe('');
  expect(annotations).toEqual({ 'authentication.k8s.io/token-request-uid-mismatch': mismatch });
  await expect(
    tokenRequest({ body: { metadata: { uid: 'sa-uid' } }, namespace: 'ns', name: 'builder' }, deps),
  ).resolves.toMatchObject({ kind: 'TokenRequest' });
});

interface RecordedRefusal {
  readonly name: string;
  readonly body: string;
  readonly code: number;
  readonly answer: { readonly message: string; readonly details?: unknown };
}

// fixtures/token-request-metadata.json: kube-apiserver 1.34.4's answers to these bodies, sent to
// the service account quote-sa in default.
const RECORDED_REFUSALS = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'token-request-metadata.json'), 'utf8'),
) as RecordedRefusal[];

test.each(RECORDED_REFUSALS.map((r) => [r.name, r] as const))('%s', async (_name, recorded) => {
  const refusal = await tokenRequest(
    { body: JSON.parse(recorded.body), namespace: 'default', name: 'quote-sa' },
    deps,
  ).catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(StatusError);
  const { code, message, details } = (refusal as StatusError).status;
  expect({ code, message, details }).toEqual({
    code: recorded.code,
    message: recorded.answer.message,
    details: recorded.answer.details,
  });
});
