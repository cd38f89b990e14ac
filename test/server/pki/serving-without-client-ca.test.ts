/**
 * The operator's serving pair and no `--client-ca-file`: as the reference, capstan then makes
 * no certificates of its own, asks clients for none, logs nobody in by one, and publishes no
 * `client-ca-file` in `extension-apiserver-authentication`.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf, type IssuedCertificate } from '../../../server/pki/certificates';
import { ensureBuilt, startCapstan, waitForExit, type RunningCapstan } from '../../helpers/capstan-process';
import { waitFor } from '../../helpers/wait-for';

const TOKEN = 'admin-token';

interface Answer {
  readonly status: number;
  readonly body: string;
}

let dir: string;
let server: RunningCapstan;
let serverCa: IssuedCertificate;
let client: IssuedCertificate;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'capstan-no-client-ca-'));
  serverCa = await issueCa({ commonName: 'operator-ca', validDays: 1 });
  const serving = await issueLeaf({
    ca: serverCa,
    subject: 'CN=localhost',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    validDays: 1,
  });
  client = await issueLeaf({ ca: serverCa, subject: 'CN=mallory, O=system:masters', usage: 'client', validDays: 1 });
  writeFileSync(join(dir, 'serving.crt'), serving.certPem);
  writeFileSync(join(dir, 'serving.key'), serving.keyPem);
  writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},admin,admin-uid,system:masters\n`);
  server = await startCapstan([
    `--data-dir=${join(dir, 'data')}`,
    `--cert-dir=${join(dir, 'certs')}`,
    '--secure-port=0',
    '--shutdown-delay-duration=0s',
    `--tls-cert-file=${join(dir, 'serving.crt')}`,
    `--tls-private-key-file=${join(dir, 'serving.key')}`,
    `--token-auth-file=${join(dir, 'tokens.csv')}`,
  ]);
});

afterAll(async () => {
  if (server) {
    server.process.kill('SIGTERM');
    await waitForExit(server);
  }
  rmSync(dir, { recursive: true, force: true });
});

function get(path: string, headers: Record<string, string> = {}, certificate?: IssuedCertificate): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const call = request(
      new URL(path, server.url),
      { ca: serverCa.certPem, cert: certificate?.certPem, key: certificate?.keyPem, headers },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    call.on('error', reject);
    call.end();
  });
}

it('writes no certificates of its own: only the service-account key it was given none of', () => {
  expect(readdirSync(dir).sort()).toEqual(['certs', 'data', 'serving.crt', 'serving.key', 'tokens.csv']);
  expect(readdirSync(join(dir, 'certs'))).toEqual(['sa.key']);
  expect(server.output()).toContain('admin kubeconfig: not written');
});

it('does not take a client certificate for anyone', async () => {
  const answer = await get('/api/v1/namespaces', {}, client);
  expect([401, 403]).toContain(answer.status);
  expect(answer.body).not.toContain('mallory');
});

it('serves bearer tokens as before', async () => {
  expect((await get('/api/v1/namespaces', { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
});

it('publishes no client-ca-file', async () => {
  const data = await waitFor('extension-apiserver-authentication', async () => {
    const answer = await get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication', {
      authorization: `Bearer ${TOKEN}`,
    });
    return answer.status === 200
      ? ((JSON.parse(answer.body) as { data?: Record<string, string> }).data ?? {})
      : undefined;
  });
  expect(Object.keys(data)).not.toContain('client-ca-file');
});
