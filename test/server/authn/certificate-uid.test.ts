/**
 * Client certificates over real TLS. AllowParsingUserUIDFromCertAuth: a certificate whose subject
 * carries the Kubernetes UID attribute (OID 1.3.6.1.4.1.57683.2) logs its user in with that UID
 * while the gate is on (the 1.34 default), and without one while it is off; two UIDs fail the
 * login (openssl cannot write an empty one, which the reference also refuses). Whatever the gates,
 * the user's credential-id extra is `X509SHA256=` and the certificate's SHA-256, as
 * kube-apiserver 1.34.4 answered a SelfSubjectReview over its admin certificate.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateCredentialId } from '../../helpers/credential-id';
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

/** The SelfSubjectReview's answer for a new certificate of `subject`, and that certificate's credential-id extra. */
async function whoAmI(
  server: TestServer,
  name: string,
  subject: string,
): Promise<{ status: number; body: unknown; extra: Record<string, string[]> }> {
  const certificate = clientCertificate(server, name, subject);
  const answer = await httpsCall(
    new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url),
    { ca: server.credentials.ca, ...certificate },
    'POST',
    { body: REVIEW, headers: { 'content-type': 'application/json' } },
  );
  const body = answer.json<{ status?: { userInfo?: unknown }; message?: string }>();
  return {
    status: answer.status,
    body: body.status?.userInfo ?? body.message,
    extra: certificateCredentialId(certificate.cert),
  };
}

test('on (the default): the UID is read; two fail the login', async () => {
  const server = await startServer();
  try {
    const alice = await whoAmI(server, 'alice', '/CN=alice/O=team/k8sUID=uid-123');
    expect(alice).toEqual({
      status: 201,
      body: { username: 'alice', uid: 'uid-123', groups: ['team', 'system:authenticated'], extra: alice.extra },
      extra: expect.anything(),
    });
    expect(await whoAmI(server, 'bob', '/CN=bob/k8sUID=u1/k8sUID=u2')).toMatchObject({
      status: 401,
      body: 'Unauthorized',
    });
  } finally {
    await server.stop();
  }
}, 60_000);

test('off: no UID', async () => {
  const server = await startServer({ flags: ['--feature-gates=AllowParsingUserUIDFromCertAuth=false'] });
  try {
    const alice = await whoAmI(server, 'alice', '/CN=alice/O=team/k8sUID=uid-123');
    expect(alice).toEqual({
      status: 201,
      body: { username: 'alice', groups: ['team', 'system:authenticated'], extra: alice.extra },
      extra: expect.anything(),
    });
  } finally {
    await server.stop();
  }
}, 60_000);

test("a certificate's SHA-256 is its user's credential-id; another certificate of the same user, another id", async () => {
  const server = await startServer();
  try {
    const admin = await httpsCall(
      new URL('/apis/authentication.k8s.io/v1/selfsubjectreviews', server.url),
      server.credentials,
      'POST',
      { body: REVIEW, headers: { 'content-type': 'application/json' } },
    );
    expect(admin.json<{ status: { userInfo: unknown } }>().status.userInfo).toEqual({
      username: 'kubernetes-admin',
      groups: ['system:masters', 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/credential-id': [expect.stringMatching(/^X509SHA256=[0-9a-f]{64}$/)],
      },
    });
    expect(admin.json<{ status: { userInfo: { extra: unknown } } }>().status.userInfo.extra).toEqual(
      certificateCredentialId(server.credentials.cert),
    );
    const first = await whoAmI(server, 'carol1', '/CN=carol');
    const second = await whoAmI(server, 'carol2', '/CN=carol');
    expect(first.body).toEqual({ username: 'carol', groups: ['system:authenticated'], extra: first.extra });
    expect(second.body).toEqual({ username: 'carol', groups: ['system:authenticated'], extra: second.extra });
    expect(first.extra).not.toEqual(second.extra);
  } finally {
    await server.stop();
  }
}, 60_000);
