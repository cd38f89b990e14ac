/**
 * --authentication-config: a jwt authenticator against a test issuer served over HTTPS (claim
 * mappings, a validation rule that rejects, several audiences), anonymous limited to one path,
 * reload on change with its metric (a bad version keeps the last good one), and the start-up
 * errors of a bad file.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { startCapstan } from '../helpers/capstan-process';
import { startServer, type TestServer } from '../helpers/server';
import { sendJson, startHttpsFixture, type HttpsFixture } from '../server/authn/https-fixture';
import { whoami, writeKubeconfig } from './auth-helpers';
import { waitUntil } from '../helpers/wait-for';

jest.setTimeout(90_000);

let dir: string;
let issuer: HttpsFixture;
let server: TestServer;
const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;

function configText(overrides: { prefix?: string; audiences?: unknown } = {}): string {
  return JSON.stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: {
          url: issuer.url,
          certificateAuthority: issuer.caPem,
          audiences: overrides.audiences ?? ['capstan', 'other'],
          audienceMatchPolicy: 'MatchAny',
        },
        claimValidationRules: [{ claim: 'hd', requiredValue: 'example.com' }],
        claimMappings: {
          username: { claim: 'sub', prefix: overrides.prefix ?? 'oidc:' },
          groups: { claim: 'roles', prefix: '' },
          uid: { claim: 'uid' },
        },
      },
    ],
    anonymous: { enabled: true, conditions: [{ path: '/livez' }] },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-authn-config-'));
  issuer = await startHttpsFixture((req, res) => {
    if (req.url === '/.well-known/openid-configuration')
      sendJson(res, 200, { issuer: issuer.url, jwks_uri: `${issuer.url}/keys` });
    else
      sendJson(res, 200, {
        keys: [{ ...(createPublicKey(key).export({ format: 'jwk' }) as object), kid: 'k1', alg: 'RS256', use: 'sig' }],
      });
  });
  writeFileSync(join(dir, 'authn.json'), configText());
  server = await startServer({ flags: [`--authentication-config=${join(dir, 'authn.json')}`] });
});

afterAll(async () => {
  await server?.stop();
  await issuer?.close();
  rmSync(dir, { recursive: true, force: true });
});

function token(overrides: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: issuer.url,
    aud: 'other',
    sub: 'frank',
    uid: 'f-1',
    hd: 'example.com',
    roles: ['system:masters', 'eng'],
    iat: now,
    exp: now + 300,
    ...overrides,
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .sign(key);
}

function get(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server.url), { ca: server.credentials.ca, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('claim mappings, a rejecting validation rule, anonymous on one path only', async () => {
  expect(await whoami(writeKubeconfig(server, dir, 'frank', { token: await token() }))).toEqual({
    username: 'oidc:frank',
    uid: 'f-1',
    groups: ['system:masters', 'eng', 'system:authenticated'],
  });
  expect(await get('/version', { authorization: `Bearer ${await token({ hd: 'evil.com' })}` })).toBe(401);
  expect(await get('/version', { authorization: `Bearer ${await token({ aud: 'nobody' })}` })).toBe(401);
  expect(await get('/livez')).toBe(200);
  expect(await get('/version')).toBe(401);
});

test('CEL: claim rules, mappings of username, groups, uid and extra, user rules', async () => {
  const path = join(dir, 'authn.json');
  const config = JSON.parse(configText()) as { jwt: Record<string, unknown>[] };
  config.jwt[0].claimValidationRules = [{ expression: "claims.hd == 'example.com'", message: 'wrong domain' }];
  config.jwt[0].claimMappings = {
    username: { expression: "'cel:' + claims.sub" },
    groups: { expression: 'claims.roles.map(r, r)' },
    uid: { expression: 'claims.uid' },
    extra: [{ key: 'example.com/hd', valueExpression: 'claims.hd' }],
  };
  config.jwt[0].userValidationRules = [{ expression: "!user.username.startsWith('cel:blocked')", message: 'blocked' }];
  writeFileSync(path, JSON.stringify(config));
  const kubeconfig = writeKubeconfig(server, dir, 'cel', { token: await token() });
  await waitUntil('the reload', async () => (await whoami(kubeconfig)).username === 'cel:frank', 20_000, 300);
  expect(await whoami(kubeconfig)).toEqual({
    username: 'cel:frank',
    uid: 'f-1',
    groups: ['system:masters', 'eng', 'system:authenticated'],
    extra: { 'example.com/hd': ['example.com'] },
  });
  expect(await get('/version', { authorization: `Bearer ${await token({ hd: 'evil.com' })}` })).toBe(401);
  expect(await get('/version', { authorization: `Bearer ${await token({ sub: 'blocked-1' })}` })).toBe(401);
  writeFileSync(path, configText());
});

test('a changed file is reloaded; a bad one keeps the last good configuration', async () => {
  const kubeconfig = writeKubeconfig(server, dir, 'frank', { token: await token() });
  writeFileSync(join(dir, 'authn.json'), configText({ prefix: 'corp:' }));
  await waitUntil('the reload', async () => (await whoami(kubeconfig)).username === 'corp:frank', 20_000, 300);
  const metrics = async () => (await server.request('GET', '/metrics')).body;
  expect(await metrics()).toMatch(
    /apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds\{status="success",apiserver_id_hash="sha256:[0-9a-f]+"\} \d/,
  );

  writeFileSync(join(dir, 'authn.json'), configText({ prefix: 'broken:', audiences: [] }));
  await waitUntil(
    'the bad file noticed',
    async () => (await metrics()).includes('automatic_reload_last_timestamp_seconds{status="failure"'),
    20_000,
    300,
  );
  expect((await whoami(kubeconfig)).username).toBe('corp:frank');
});

test.each([
  [
    'no audiences',
    (c: Record<string, unknown>) => ((c.jwt as { issuer: { audiences: string[] } }[])[0].issuer.audiences = []),
    'jwt[0].issuer.audiences: Required value',
  ],
  [
    'plain http',
    (c: Record<string, unknown>) => ((c.jwt as { issuer: { url: string } }[])[0].issuer.url = 'http://127.0.0.1:1'),
    'jwt[0].issuer.url: Invalid value: "http://127.0.0.1:1": URL scheme must be https',
  ],
  [
    'a CEL mapping of the wrong type',
    (c: Record<string, unknown>) =>
      ((c.jwt as { claimMappings: unknown }[])[0].claimMappings = { username: { expression: 'claims.sub == "a"' } }),
    'jwt[0].claimMappings.username.expression: Invalid value: "claims.sub == \\"a\\"": must evaluate to one of string, got bool',
  ],
  [
    'an unverified email',
    (c: Record<string, unknown>) =>
      ((c.jwt as { claimMappings: unknown }[])[0].claimMappings = { username: { expression: 'claims.email' } }),
    'claims.email_verified must be used',
  ],
  [
    'no username prefix',
    (c: Record<string, unknown>) =>
      ((c.jwt as { claimMappings: unknown }[])[0].claimMappings = { username: { claim: 'sub' } }),
    'jwt[0].claimMappings.username.prefix: Required value',
  ],
])('a bad file stops the start: %s', async (_name, spoil, message) => {
  const config = JSON.parse(configText()) as Record<string, unknown>;
  spoil(config);
  const path = join(dir, 'bad.json');
  writeFileSync(path, JSON.stringify(config));
  await expect(
    startCapstan(['--data-dir', join(dir, 'bad-data'), '--secure-port', '0', `--authentication-config=${path}`]),
  ).rejects.toThrow(message);
});

test('--authentication-config excludes --oidc-* and, with an anonymous section, --anonymous-auth', async () => {
  const path = join(dir, 'authn.json');
  writeFileSync(path, configText());
  await expect(
    startCapstan([
      '--data-dir',
      join(dir, 'x-data'),
      '--secure-port',
      '0',
      `--authentication-config=${path}`,
      '--oidc-issuer-url=https://127.0.0.1:1',
      '--oidc-client-id=x',
    ]),
  ).rejects.toThrow('authentication-config file and oidc-* flags are mutually exclusive');
  await expect(
    startCapstan([
      '--data-dir',
      join(dir, 'x-data'),
      '--secure-port',
      '0',
      `--authentication-config=${path}`,
      '--anonymous-auth=true',
    ]),
  ).rejects.toThrow('anonymous is configured in the authentication config and with --anonymous-auth');
});
