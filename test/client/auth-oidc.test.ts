/**
 * OIDC by flags against a test issuer served for real over HTTPS (discovery + JWKS): the
 * mapped user, key rotation picked up on an unknown key id, and every bad token a 401.
 */
import { generateKeyPairSync, createPublicKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base64url, SignJWT } from 'jose';
import { startServer, type TestServer } from '../helpers/server';
import { sendJson, startHttpsFixture, type HttpsFixture } from '../server/authn/https-fixture';
import { whoami, writeKubeconfig } from './auth-helpers';

jest.setTimeout(60_000);

let dir: string;
let issuer: HttpsFixture;
let server: TestServer;
const published: Record<string, string>[] = [];
const keyA = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const keyB = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const keyC = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

function jwkOf(key: KeyObject, kid: string): Record<string, string> {
  return {
    ...(createPublicKey(key).export({ format: 'jwk' }) as Record<string, string>),
    kid,
    alg: 'RS256',
    use: 'sig',
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-oidc-'));
  published.push(jwkOf(keyA, 'a'));
  issuer = await startHttpsFixture((req, res) => {
    if (req.url === '/.well-known/openid-configuration')
      sendJson(res, 200, { issuer: issuer.url, jwks_uri: `${issuer.url}/keys` });
    else if (req.url === '/keys') sendJson(res, 200, { keys: published });
    else sendJson(res, 404, {});
  });
  writeFileSync(join(dir, 'issuer-ca.crt'), issuer.caPem);
  server = await startServer({
    flags: [
      `--oidc-issuer-url=${issuer.url}`,
      '--oidc-client-id=capstan',
      `--oidc-ca-file=${join(dir, 'issuer-ca.crt')}`,
      '--oidc-username-claim=email',
      '--oidc-groups-claim=groups',
      '--oidc-required-claim=hd=example.com',
    ],
  });
});

afterAll(async () => {
  await server?.stop();
  await issuer?.close();
  rmSync(dir, { recursive: true, force: true });
});

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: issuer.url,
    aud: 'capstan',
    sub: '1234',
    email: 'frank@example.com',
    email_verified: true,
    hd: 'example.com',
    groups: ['system:masters', 'eng'],
    iat: now,
    exp: now + 300,
    ...overrides,
  };
}

function sign(payload: Record<string, unknown>, key = keyA, kid = 'a'): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid }).sign(key);
}

function statusWith(token: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      new URL('/version', server.url),
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

test('an ID token: the email as the username, the groups claim', async () => {
  const kubeconfig = writeKubeconfig(server, dir, 'frank', { token: await sign(claims()) });
  expect(await whoami(kubeconfig)).toEqual({
    username: 'frank@example.com',
    groups: ['system:masters', 'eng', 'system:authenticated'],
  });
});

test('a rotated key is fetched when a token names it; an unpublished one is refused', async () => {
  const rotated = await sign(claims(), keyB, 'b');
  published.push(jwkOf(keyB, 'b'));
  expect(await statusWith(rotated)).toBe(200);
  expect(await statusWith(await sign(claims(), keyC, 'c'))).toBe(401);
});

test('bad tokens are 401', async () => {
  const now = Math.floor(Date.now() / 1000);
  const publicPem = createPublicKey(keyA).export({ type: 'spki', format: 'pem' });
  const bad: Record<string, string> = {
    'wrong audience': await sign(claims({ aud: 'someone-else' })),
    expired: await sign(claims({ exp: now - 10, iat: now - 400 })),
    'wrong issuer': await sign(claims({ iss: 'https://127.0.0.1:1' })),
    'email not verified': await sign(claims({ email_verified: false })),
    'required claim missing': await sign(claims({ hd: undefined })),
    'required claim different': await sign(claims({ hd: 'evil.com' })),
    'alg none': `${base64url.encode(JSON.stringify({ alg: 'none' }))}.${base64url.encode(JSON.stringify(claims()))}.`,
    'HS256 keyed with the public key': await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: 'a' })
      .sign(Buffer.from(publicPem)),
    malformed: 'a.b.c',
  };
  for (const [name, token] of Object.entries(bad)) expect([name, await statusWith(token)]).toEqual([name, 401]);
  expect(await statusWith(await sign(claims()))).toBe(200);
});
