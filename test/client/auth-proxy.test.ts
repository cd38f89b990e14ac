/**
 * An authenticating proxy: its headers are believed only on a request carrying the proxy's
 * client certificate (chained to --requestheader-client-ca-file, with an allowed Common
 * Name); the same headers from anyone else are ignored and removed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf, type IssuedCertificate } from '../../server/pki/certificates';
import { startServer, type TestServer } from '../helpers/server';
import { certificateCredentialId } from '../helpers/credential-id';
import { waitFor } from '../helpers/wait-for';

jest.setTimeout(60_000);

let dir: string;
let server: TestServer;
let proxy: IssuedCertificate;
let intruder: IssuedCertificate;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-proxy-'));
  const proxyCa = await issueCa({ commonName: 'front-proxy-ca', validDays: 1 });
  proxy = await issueLeaf({ ca: proxyCa, subject: 'CN=front-proxy', usage: 'client', validDays: 1 });
  intruder = await issueLeaf({ ca: proxyCa, subject: 'CN=intruder, O=system:masters', usage: 'client', validDays: 1 });
  writeFileSync(join(dir, 'proxy-ca.crt'), proxyCa.certPem);
  server = await startServer({
    flags: [
      `--requestheader-client-ca-file=${join(dir, 'proxy-ca.crt')}`,
      '--requestheader-username-headers=X-Remote-User',
      '--requestheader-uid-headers=X-Remote-Uid',
      '--requestheader-group-headers=X-Remote-Group',
      '--requestheader-extra-headers-prefix=X-Remote-Extra-',
      '--requestheader-allowed-names=front-proxy',
    ],
  });
});

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const PROXY_HEADERS: [string, string][] = [
  ['X-Remote-User', 'carol'],
  ['X-Remote-Uid', 'carol-uid'],
  ['X-Remote-Group', 'system:masters'],
  ['X-Remote-Group', 'ops'],
  ['X-Remote-Extra-Scopes', 'read'],
  ['X-Remote-Extra-Scopes', 'write'],
  ['X-Remote-Extra-Example.com%2fTeam', 'blue'],
];

function selfReview(client: {
  cert?: string | Buffer;
  key?: string | Buffer;
}): Promise<{ status: number; body: { status?: { userInfo: unknown }; message?: string } }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    // Raw headers, so that repeated ones go out repeated; Node adds no Host or length to those.
    const raw = PROXY_HEADERS.flat().concat([
      'Host',
      new URL(server.url).host,
      'Content-Type',
      'application/json',
      'Content-Length',
      String(body.length),
    ]);
    const req = request(
      new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url),
      { method: 'POST', ca: server.credentials.ca, ...client, headers: raw },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test("the proxy's certificate makes its headers the user", async () => {
  const answer = await selfReview({ cert: proxy.certPem, key: proxy.keyPem });
  expect(answer.status).toBe(201);
  expect(answer.body.status?.userInfo).toEqual({
    username: 'carol',
    uid: 'carol-uid',
    groups: ['system:masters', 'ops', 'system:authenticated'],
    extra: { scopes: ['read', 'write'], 'example.com/team': ['blue'] },
  });
});

test('the same headers with the admin certificate: the admin', async () => {
  const answer = await selfReview({ cert: server.credentials.cert, key: server.credentials.key });
  expect(answer.body.status?.userInfo).toEqual({
    username: 'kubernetes-admin',
    groups: ['system:masters', 'system:authenticated'],
    extra: certificateCredentialId(server.credentials.cert),
  });
});

test('the same headers without a certificate: anonymous, headers ignored', async () => {
  const answer = await selfReview({});
  expect(answer.status).toBe(403);
  expect(answer.body.message).toContain('User "system:anonymous" cannot create resource "selfsubjectreviews"');
});

test('a certificate of the proxy CA with a name not allowed is refused, and is no client certificate either', async () => {
  const answer = await selfReview({ cert: intruder.certPem, key: intruder.keyPem });
  expect(answer.status).toBe(401);
});

test('kube-system/extension-apiserver-authentication publishes the client CA and the proxy settings', async () => {
  const data = await waitFor(
    'the ConfigMap',
    async () => {
      const answer = await server.request(
        'GET',
        '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication',
      );
      return answer.status === 200 ? answer.json<{ data: Record<string, string> }>().data : undefined;
    },
    20_000,
  );
  expect(data).toEqual({
    'client-ca-file': server.credentials.ca.toString('utf8'),
    'requestheader-client-ca-file': readFileSync(join(dir, 'proxy-ca.crt'), 'utf8'),
    'requestheader-username-headers': '["X-Remote-User"]',
    'requestheader-uid-headers': '["X-Remote-Uid"]',
    'requestheader-group-headers': '["X-Remote-Group"]',
    'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    'requestheader-allowed-names': '["front-proxy"]',
  });
});
