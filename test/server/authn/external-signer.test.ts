/**
 * `--service-account-signing-endpoint`: capstan signs service-account tokens through an external
 * JWT signer the test serves (grpc-js on a unix socket, holding RSA and ECDSA keys), verifies
 * them with the keys it fetched, and lists those keys in its discovery documents. Every
 * expectation here was recorded from kube-apiserver 1.34.4 with the same signer: the header the
 * signer's answer makes, the signer's lifetime as the cap with kubectl's warning, rotation seen
 * at once, the keys fetched again at the signer's refresh hint (the JWKS max-age running down to
 * it), a key left out of discovery refused for signing, the checks of the signer's header with
 * their messages, and a signer that is down answered by the request's timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsCall, startServer, type TestServer } from '../../helpers/server';
import { startJwtSigner, type TestJwtSigner } from '../../helpers/jwt-signer';
import { waitUntil } from '../../helpers/wait-for';

jest.setTimeout(120_000);

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
let dir: string;
let signer: TestJwtSigner;
let server: TestServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-signer-'));
  signer = await startJwtSigner(join(dir, 'signer.sock'), { keyId: 'key-1', maxTokenExpirationSeconds: 86_400 });
  server = await startServer({ flags: [`--service-account-signing-endpoint=${signer.socketPath}`] });
  expect((await server.kubectl(['create', 'serviceaccount', 'robot'])).code).toBe(0);
});

afterAll(async () => {
  await server?.stop();
  await signer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as unknown;
const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()) as Record<string, unknown>;

/** Who the server takes the bearer of `token` to be: a SelfSubjectReview with no client certificate. */
function whoAmI(token: string) {
  return httpsCall(
    new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url),
    { ...server.credentials, cert: undefined, key: undefined } as unknown as typeof server.credentials,
    'POST',
    {
      body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    },
  );
}

async function createToken(...args: string[]): Promise<string> {
  const result = await server.kubectl(['create', 'token', 'robot', ...args]);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return result.stdout.trim();
}

async function jwks(): Promise<{ kids: string[]; maxAge: number; body: { keys: Record<string, string>[] } }> {
  const answer = await server.request('GET', '/openid/v1/jwks');
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toBe('application/jwk-set+json');
  const maxAge = /^public, max-age=(\d+)$/.exec(String(answer.headers['cache-control']));
  expect(maxAge).not.toBeNull();
  const body = answer.json<{ keys: Record<string, string>[] }>();
  return { kids: body.keys.map((key) => key.kid), maxAge: Number(maxAge?.[1]), body };
}

test('the signer signs what kubectl create token asks for, and the token logs its account in', async () => {
  // The start filled the key cache and read the signer's limits, once each, and warned as the
  // reference does that the kubelet's year-long tokens get the signer's day at most.
  expect(signer.calls).toMatchObject({ FetchKeys: 1, Metadata: 1 });
  expect(server.output()).toContain(
    'service-account-extend-token-expiration is true, tokens validity will be caped at the smaller of 31536000 seconds and maximum token lifetime supported by external-jwt-signer (24h0m0s)',
  );
  const token = await createToken();
  // The signer's header, the server's claims, the signer's signature.
  expect(headerOf(token)).toEqual({ alg: 'RS256', kid: 'key-1', typ: 'JWT' });
  const claims = payloadOf(token);
  expect(signer.signed.at(-1)).toEqual(claims);
  expect(Object.keys(claims)).toEqual(['aud', 'exp', 'iat', 'iss', 'jti', 'kubernetes.io', 'nbf', 'sub']);
  expect(claims).toMatchObject({ aud: [ISSUER], iss: ISSUER, sub: 'system:serviceaccount:default:robot' });
  expect(Number(claims.exp) - Number(claims.iat)).toBe(3600);

  const review = await whoAmI(token);
  expect(review.status).toBe(201);
  expect(review.json<{ status: { userInfo: unknown } }>().status.userInfo).toEqual({
    username: 'system:serviceaccount:default:robot',
    uid: (claims['kubernetes.io'] as { serviceaccount: { uid: string } }).serviceaccount.uid,
    groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${String(claims.jti)}`] },
  });
});

test("the signer's key is in the JWKS, cacheable until the signer's refresh hint", async () => {
  const { body, maxAge } = await jwks();
  const jwk = signer.keys[0].publicKey.export({ format: 'jwk' });
  expect(body).toEqual({ keys: [{ use: 'sig', kty: 'RSA', kid: 'key-1', alg: 'RS256', n: jwk.n, e: jwk.e }] });
  // The hint is an hour from the start's fetch: the reference answered 3597 a few seconds in.
  expect(maxAge).toBeGreaterThan(3500);
  expect(maxAge).toBeLessThan(3600);
  const configuration = await server.request('GET', '/.well-known/openid-configuration');
  expect(configuration.headers['cache-control']).toBe(`public, max-age=${maxAge}`);
  expect(configuration.json()).toMatchObject({ issuer: ISSUER, id_token_signing_alg_values_supported: ['RS256'] });
});

test("the signer's maximum lifetime caps a token, with the reference's warning", async () => {
  const result = await server.kubectl(['create', 'token', 'robot', '--duration=100h', '-o', 'json']);
  expect(result.code).toBe(0);
  expect(result.stderr).toBe('Warning: requested expiration of 360000 seconds shortened to 86400 seconds\n');
  expect(JSON.parse(result.stdout)).toMatchObject({ spec: { expirationSeconds: 86_400 } });
});

test('a key the signer rotates to signs, verifies and is published at once', async () => {
  const oldToken = await createToken();
  signer.rotate('key-2', 'ES256');
  const token = await createToken();
  expect(headerOf(token)).toEqual({ alg: 'ES256', kid: 'key-2', typ: 'JWT' });
  // Checking the header of the first token of key-2 fetched the keys again.
  expect(signer.calls.FetchKeys).toBe(2);
  expect((await jwks()).kids).toEqual(['key-1', 'key-2']);
  expect((await whoAmI(token)).status).toBe(201);
  expect((await whoAmI(oldToken)).status).toBe(201);
  const configuration = await server.request('GET', '/.well-known/openid-configuration');
  expect(configuration.json()).toMatchObject({ id_token_signing_alg_values_supported: ['ES256', 'RS256'] });
});

test('a key left out of discovery does not sign, and is not published', async () => {
  signer.keys[1].excludeFromOidcDiscovery = true;
  signer.rotate('key-3').excludeFromOidcDiscovery = true;
  const result = await server.kubectl(['create', 'token', 'robot']);
  expect(result).toEqual({
    code: 1,
    stdout: '',
    stderr:
      'error: failed to create token: Internal error occurred: failed to generate token: while validating header: key used for signing JWT (kid: key-3) is excluded from OIDC discovery docs\n',
  });
  expect((await jwks()).kids).toEqual(['key-1']);
  signer.keys.splice(1);
});

test("a signer's answer the reference would not assemble into a token is a 500 naming what is wrong", async () => {
  const encode = (header: object) => Buffer.from(JSON.stringify(header)).toString('base64url');
  const cases: [{ header?: string; signature?: string }, string][] = [
    [{ header: encode({ alg: 'RS256', kid: 'key-1', typ: 'JOSE' }) }, 'while validating header: bad type'],
    [{ header: encode({ alg: 'RS256', typ: 'JWT' }) }, 'while validating header: key id missing'],
    [
      { header: encode({ alg: 'HS256', kid: 'key-1', typ: 'JWT' }) },
      'while validating header: bad signing algorithm "HS256"',
    ],
    [
      { header: encode({ alg: 'RS256', kid: 'key-1', typ: 'JWT', cty: 'x' }) },
      'while validating header: while parsing header JSON: json: unknown field "cty"',
    ],
    [
      { header: `${encode({ alg: 'RS256', kid: 'key-1', typ: 'JWT' })}=` },
      'while validating header: while unwrapping header: illegal base64 data at input byte 55',
    ],
    [
      { header: encode({ alg: 'RS256', kid: 'key-1', typ: 5 }) },
      'while validating header: while parsing header JSON: json: cannot unmarshal number into Go struct field .typ of type string',
    ],
    [{ signature: '' }, 'empty signature returned'],
  ];
  for (const [override, cause] of cases) {
    signer.override = override;
    const answer = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect([answer.status, answer.json<{ message: string }>().message]).toEqual([
      500,
      `Internal error occurred: failed to generate token: ${cause}`,
    ]);
  }
  signer.override = {};
});

test('with the signer down, a token request times out and the keys already fetched still verify', async () => {
  const token = await createToken();
  await signer.stop();
  const began = Date.now();
  const answer = await server.request('POST', '/api/v1/namespaces/default/serviceaccounts/robot/token?timeout=2s', {
    body: JSON.stringify({ spec: {} }),
    headers: { 'content-type': 'application/json' },
  });
  expect(answer.status).toBe(504);
  expect(answer.json()).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Timeout: request did not complete within the allotted timeout',
    reason: 'Timeout',
    details: {},
    code: 504,
  });
  expect(Date.now() - began).toBeGreaterThanOrEqual(2000);
  expect((await whoAmI(token)).status).toBe(201);
  expect((await jwks()).kids).toEqual(['key-1']);
});

test("the reference's apiserver_externaljwt_* metrics count the calls, by method and gRPC code", async () => {
  const sample = async (series: string) => {
    const text = (await server.request('GET', '/metrics')).body;
    const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  // The Sign call of the timed-out request ends at its deadline and a grace second past it.
  await waitUntil(
    'the timed-out Sign call to be counted',
    async () => (await sample('apiserver_externaljwt_sign_request_total{code="DeadlineExceeded"}')) === 1,
    10_000,
  );
  // Header checks and the excluded key fail outside gRPC.
  expect(await sample('apiserver_externaljwt_sign_request_total{code="unknown-non-grpc"}')).toBe(8);
  expect(await sample('apiserver_externaljwt_sign_request_total{code="OK"}')).toBe(5);
  expect(await sample('apiserver_externaljwt_fetch_keys_request_total{code="OK"}')).toBe(3);
  expect(
    await sample(
      'apiserver_externaljwt_request_duration_seconds_count{method="/v1.ExternalJWTSigner/Metadata",code="OK"}',
    ),
  ).toBe(1);
  expect(
    await sample(
      'apiserver_externaljwt_request_duration_seconds_count{method="/v1.ExternalJWTSigner/Sign",code="DeadlineExceeded"}',
    ),
  ).toBe(1);
  expect(await sample('apiserver_externaljwt_fetch_keys_data_timestamp')).toBeGreaterThan(1.7e9);
});

test('a signer back on its socket signs again', async () => {
  signer = await startJwtSigner(signer.socketPath, { keys: signer.keys, maxTokenExpirationSeconds: 86_400 });
  const token = await createToken();
  expect(headerOf(token)).toEqual({ alg: 'RS256', kid: 'key-1', typ: 'JWT' });
  expect((await whoAmI(token)).status).toBe(201);
});

test("the keys are fetched again when the signer's refresh hint comes due", async () => {
  const hinting = await startJwtSigner(join(dir, 'hinting.sock'), { keyId: 'key-a' });
  hinting.refreshHintSeconds = 1;
  const second = await startServer({ flags: [`--service-account-signing-endpoint=${hinting.socketPath}`] });
  try {
    const kids = async () => {
      const answer = await second.request('GET', '/openid/v1/jwks');
      return {
        kids: answer.json<{ keys: { kid: string }[] }>().keys.map((key) => key.kid),
        cacheControl: answer.headers['cache-control'],
      };
    };
    expect(await kids()).toEqual({ kids: ['key-a'], cacheControl: expect.stringMatching(/^public, max-age=[01]$/) });
    // A key the signer adds reaches the JWKS with no token asking for it.
    hinting.rotate('key-b');
    await waitUntil('key-b in the JWKS', async () => (await kids()).kids.includes('key-b'), 10_000);
    expect(hinting.calls.FetchKeys).toBeGreaterThanOrEqual(2);
  } finally {
    await second.stop();
    await hinting.stop();
  }
});

test('a refresh hint past what a timer holds is waited for, not fetched again at once', async () => {
  const patient = await startJwtSigner(join(dir, 'patient.sock'), { keyId: 'key-p' });
  patient.refreshHintSeconds = 100_000_000;
  const third = await startServer({ flags: [`--service-account-signing-endpoint=${patient.socketPath}`] });
  try {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(patient.calls.FetchKeys).toBe(1);
    const answer = await third.request('GET', '/openid/v1/jwks');
    expect(answer.headers['cache-control']).toMatch(/^public, max-age=9999\d{4}$/);
  } finally {
    await third.stop();
    await patient.stop();
  }
});
