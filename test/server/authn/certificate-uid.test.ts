/**
 * AllowParsingUserUIDFromCertAuth over real TLS: a client certificate whose subject carries the
 * Kubernetes UID attribute (OID 1.3.6.1.4.1.57683.2) logs its user in with that UID while the
 * gate is on (the 1.34 default), and without one while it is off; two UIDs fail the login
 * (openssl cannot write an empty one, which the reference also refuses).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsCall, startServer, type TestServer } from '../../helpers/server';

const OPENSSL_CONFIG = 'oid_section=oids\n[oids]\nk8sUID=1.3.6.1.4.1.57683.2\n[req]\ndistinguished_name=dn\n[dn]\n';
const REVIEW = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cert-uid-'));
  writeFileSync(join(dir, 'openssl.cnf'), OPENSSL_CONFIG);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A client certificate for `subject`, signed by the server's client CA. */
function clientCertificate(server: TestServer, name: string, subject: string): { cert: Buffer; key: Buffer } {
  const pki = join(server.dataDir, 'pki');
  const [key, csr, cert] = ['key', 'csr', 'crt'].map((ext) => join(dir, `${name}.${ext}`));
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  openssl(['req', '-new', '-config', join(dir, 'openssl.cnf'), '-key', key, '-subj', subject, '-out', csr]);
  openssl(
    ['x509', '-req', '-in', csr, '-CA', join(pki, 'ca.crt'), '-CAkey', join(pki, 'ca.key')].concat([
      '-CAcreateserial',
      '-days',
      '1',
      '-out',
      cert,
    ]),
  );
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

async function whoAmI(server: TestServer, name: string, subject: string): Promise<{ status: number; body: unknown }> {
  const answer = await httpsCall(
    new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url),
    { ca: server.credentials.ca, ...clientCertificate(server, name, subject) },
    'POST',
    { body: REVIEW, headers: { 'content-type': 'application/json' } },
  );
  const body = answer.json<{ status?: { userInfo?: unknown }; message?: string }>();
  return { status: answer.status, body: body.status?.userInfo ?? body.message };
}

test('on (the default): the UID is read; two fail the login', async () => {
  const server = await startServer();
  try {
    expect(await whoAmI(server, 'alice', '/CN=alice/O=team/k8sUID=uid-123')).toEqual({
      status: 201,
      body: { username: 'alice', uid: 'uid-123', groups: ['team', 'system:authenticated'] },
    });
    expect(await whoAmI(server, 'bob', '/CN=bob/k8sUID=u1/k8sUID=u2')).toEqual({ status: 401, body: 'Unauthorized' });
  } finally {
    await server.stop();
  }
}, 60_000);

test('off: no UID', async () => {
  const server = await startServer({ flags: ['--feature-gates=AllowParsingUserUIDFromCertAuth=false'] });
  try {
    expect(await whoAmI(server, 'alice', '/CN=alice/O=team/k8sUID=uid-123')).toEqual({
      status: 201,
      body: { username: 'alice', groups: ['team', 'system:authenticated'] },
    });
  } finally {
    await server.stop();
  }
}, 60_000);
