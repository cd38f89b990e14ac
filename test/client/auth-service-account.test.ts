/**
 * Service-account tokens with no flags at all: the server makes its signing key, `kubectl
 * create token` mints tokens the server accepts (with the reference's claims), lookup rejects
 * them once the account or the bound pod is gone, the issuer's discovery documents verify
 * them, and forged or expired tokens are 401. Every namespace gets `default` and
 * `kube-root-ca.crt` from the leader's controllers.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { base64url, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startServer, type TestServer } from '../helpers/server';
import { kubectlWith, whoami, writeKubeconfig } from './auth-helpers';
import { waitFor } from '../helpers/wait-for';

jest.setTimeout(90_000);

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  await kubectlOk(['create', 'namespace', 'team']);
  await kubectlOk(['create', 'serviceaccount', 'builder', '-n', 'team']);
});

afterAll(async () => {
  await server?.stop();
});

async function kubectlOk(args: readonly string[], input?: string): Promise<string> {
  const result = await server.kubectl(args, input === undefined ? {} : { input });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

function withToken(token: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server.url),
      { ca: server.credentials.ca, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface Review {
  status: {
    authenticated?: boolean;
    user?: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    audiences?: string[];
    error?: string;
  };
}

async function review(token: string, audiences?: string[]): Promise<Review> {
  const body = JSON.stringify({
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenReview',
    spec: { token, ...(audiences ? { audiences } : {}) },
  });
  return JSON.parse(
    await kubectlOk(['create', '--raw', '/apis/authentication.k8s.io/v1/tokenreviews', '-f', '-'], body),
  ) as Review;
}

test('every namespace gets a default ServiceAccount and the kube-root-ca.crt ConfigMap', async () => {
  await waitFor(
    'default SA',
    async () =>
      (await server.kubectl(['get', 'serviceaccount', 'default', '-n', 'team'])).code === 0 ? true : undefined,
    20_000,
  );
  const configMap = await waitFor(
    'kube-root-ca.crt',
    async () => {
      const result = await server.kubectl(['get', 'configmap', 'kube-root-ca.crt', '-n', 'team', '-o', 'json']);
      return result.code === 0
        ? (JSON.parse(result.stdout) as {
            data: Record<string, string>;
            metadata: { annotations: Record<string, string> };
          })
        : undefined;
    },
    20_000,
  );
  expect(configMap.data).toEqual({ 'ca.crt': server.credentials.ca.toString('utf8') });
  expect(configMap.metadata.annotations['kubernetes.io/description']).toMatch(/^Contains a CA bundle/);
  // Removed: put back.
  await kubectlOk(['delete', 'serviceaccount', 'default', '-n', 'team']);
  await waitFor(
    'default SA again',
    async () =>
      (await server.kubectl(['get', 'serviceaccount', 'default', '-n', 'team'])).code === 0 ? true : undefined,
    20_000,
  );
});

test("kube-system/kube-apiserver-legacy-service-account-token-tracking says since when legacy tokens are tracked (the controller manager's cleaner reads it)", async () => {
  const read = async () => {
    const result = await server.kubectl([
      'get',
      'configmap',
      'kube-apiserver-legacy-service-account-token-tracking',
      '-n',
      'kube-system',
      '-o',
      'jsonpath={.data.since}',
    ]);
    return result.code === 0 && result.stdout !== '' ? result.stdout : undefined;
  };
  expect(await waitFor('the tracking ConfigMap', read, 20_000)).toBe(new Date().toISOString().slice(0, 10));
  // A date that does not parse is set to today again.
  await kubectlOk([
    'patch',
    'configmap',
    'kube-apiserver-legacy-service-account-token-tracking',
    '-n',
    'kube-system',
    '--type=merge',
    '-p',
    '{"data":{"since":"yesterday"}}',
  ]);
  expect(
    await waitFor('the date put back', async () => ((await read()) === 'yesterday' ? undefined : read()), 20_000),
  ).toBe(new Date().toISOString().slice(0, 10));
});

test('kubectl create token: the reference claims, accepted, rejected once the account is deleted', async () => {
  await kubectlOk(['create', 'serviceaccount', 'short-lived', '-n', 'team']);
  const uid = (await kubectlOk(['get', 'sa', 'short-lived', '-n', 'team', '-o', 'jsonpath={.metadata.uid}'])).trim();
  const token = (await kubectlOk(['create', 'token', 'short-lived', '-n', 'team', '--duration', '20m'])).trim();
  const claims = decodeJwt(token);
  expect(Object.keys(claims)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
  expect(claims).toMatchObject({
    aud: ['https://kubernetes.default.svc.cluster.local'],
    iss: 'https://kubernetes.default.svc.cluster.local',
    sub: 'system:serviceaccount:team:short-lived',
    'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'short-lived', uid } },
  });
  expect((claims.exp as number) - (claims.iat as number)).toBe(1200);
  expect(claims.nbf).toBe(claims.iat);
  expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256' });

  expect((await review(token)).status).toEqual({
    authenticated: true,
    user: {
      username: 'system:serviceaccount:team:short-lived',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claims.jti)}`] },
    },
    audiences: ['https://kubernetes.default.svc.cluster.local'],
  });
  // kubectl auth whoami with the token itself (system:basic-user lets every authenticated user ask).
  const dir = mkdtempSync(join(tmpdir(), 'capstan-sa-whoami-'));
  const kubeconfig = writeKubeconfig(server, dir, 'short-lived', { token });
  expect(await whoami(kubeconfig)).toEqual({
    username: 'system:serviceaccount:team:short-lived',
    uid,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claims.jti)}`] },
  });
  // An authenticated service account, though not allowed to list namespaces: 403, not 401.
  expect(await withToken(token, '/api/v1/namespaces')).toBe(403);
  // For another audience: not this token.
  const otherAudience = (await review(token, ['vault'])).status;
  expect(otherAudience).toMatchObject({ user: {} });
  expect(otherAudience).not.toHaveProperty('authenticated');

  await kubectlOk(['delete', 'sa', 'short-lived', '-n', 'team']);
  expect(await withToken(token, '/api/v1/namespaces')).toBe(401);
  const refused = await kubectlWith(kubeconfig, ['auth', 'whoami', '-o', 'json']);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('Unauthorized');
  rmSync(dir, { recursive: true, force: true });
  // Go's JSON of a failed review's status: `authenticated: false` left out, the empty user not.
  expect((await review(token)).status).toEqual({
    user: {},
    error: 'serviceaccounts "short-lived" not found',
  });
});

test('a token bound to a pod names the pod and dies with it', async () => {
  await kubectlOk(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'worker', namespace: 'team' },
      spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'busybox' }] },
    }),
  );
  const podUid = (await kubectlOk(['get', 'pod', 'worker', '-n', 'team', '-o', 'jsonpath={.metadata.uid}'])).trim();
  const token = (
    await kubectlOk([
      'create',
      'token',
      'builder',
      '-n',
      'team',
      '--bound-object-kind',
      'Pod',
      '--bound-object-name',
      'worker',
    ])
  ).trim();
  expect(decodeJwt(token)['kubernetes.io']).toMatchObject({ pod: { name: 'worker', uid: podUid } });
  const { status } = await review(token);
  expect(status.user?.extra).toMatchObject({
    'authentication.kubernetes.io/pod-name': ['worker'],
    'authentication.kubernetes.io/pod-uid': [podUid],
  });
  // Another account's pod cannot be bound.
  const refused = await server.kubectl([
    'create',
    'token',
    'default',
    '-n',
    'team',
    '--bound-object-kind',
    'Pod',
    '--bound-object-name',
    'worker',
  ]);
  expect(refused.stderr).toContain(
    'cannot bind token for serviceaccount "default" to pod running with different serviceaccount name.',
  );
  await kubectlOk(['delete', 'pod', 'worker', '-n', 'team', '--grace-period=0', '--force']);
  await waitFor(
    'pod-bound token refused',
    async () => ((await withToken(token, '/version')) === 401 ? true : undefined),
    20_000,
  );
});

test('TokenRequest validation', async () => {
  const short = await server.kubectl(['create', 'token', 'builder', '-n', 'team', '--duration', '5m']);
  expect(short.stderr).toContain(
    'spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes',
  );
  const missing = await server.kubectl(['create', 'token', 'nobody', '-n', 'team']);
  expect(missing.stderr).toContain('serviceaccounts "nobody" not found');
});

test('the issuer discovery documents verify the tokens', async () => {
  const configuration = (await server.request('GET', '/.well-known/openid-configuration')).json<
    Record<string, unknown>
  >();
  expect(configuration).toEqual({
    issuer: 'https://kubernetes.default.svc.cluster.local',
    jwks_uri: `${server.url}/openid/v1/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  });
  const jwksResponse = await server.request('GET', '/openid/v1/jwks');
  expect(jwksResponse.headers['content-type']).toBe('application/jwk-set+json');
  const token = (await kubectlOk(['create', 'token', 'builder', '-n', 'team'])).trim();
  const { payload } = await jwtVerify(token, createLocalJWKSet(jwksResponse.json()), {
    issuer: 'https://kubernetes.default.svc.cluster.local',
  });
  expect(payload.sub).toBe('system:serviceaccount:team:builder');
});

test('forged, expired and malformed tokens are all 401', async () => {
  const keyPem = readFileSync(join(server.dataDir, 'pki', 'sa.key'), 'utf8');
  const key = createPrivateKey(keyPem);
  const uid = (await kubectlOk(['get', 'sa', 'builder', '-n', 'team', '-o', 'jsonpath={.metadata.uid}'])).trim();
  const now = Math.floor(Date.now() / 1000);
  const claims = (overrides: Record<string, unknown> = {}) => ({
    aud: ['https://kubernetes.default.svc.cluster.local'],
    exp: now + 600,
    iat: now,
    iss: 'https://kubernetes.default.svc.cluster.local',
    jti: 'x',
    'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'builder', uid } },
    nbf: now,
    sub: 'system:serviceaccount:team:builder',
    ...overrides,
  });
  const sign = (payload: Record<string, unknown>, signingKey = key) =>
    new SignJWT(payload).setProtectedHeader({ alg: 'RS256' }).sign(signingKey);
  // The forging method works: the same claims signed properly are accepted.
  expect(await withToken(await sign(claims()), '/version')).toBe(200);

  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const publicDer = createPublicKey(key).export({ type: 'spki', format: 'pem' });
  const unsigned = `${base64url.encode(JSON.stringify({ alg: 'none' }))}.${base64url.encode(JSON.stringify(claims()))}.`;
  const hs256 = await new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(Buffer.from(publicDer));
  const bad: Record<string, string> = {
    expired: await sign(claims({ exp: now - 120, iat: now - 1000, nbf: now - 1000 })),
    'wrong audience': await sign(claims({ aud: ['someone-else'] })),
    'wrong issuer': await sign(claims({ iss: 'https://elsewhere.example' })),
    'unknown key': await sign(claims(), other),
    'alg none': unsigned,
    'HS256 keyed with the public key': hs256,
    malformed: 'eyJhbGciOiJSUzI1NiJ9.not-json.x',
    'not a JWT': 'hello',
  };
  for (const [name, token] of Object.entries(bad)) {
    expect([name, await withToken(token, '/version')]).toEqual([name, 401]);
  }
});
