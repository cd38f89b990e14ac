/**
 * Validation of alpha kinds (DeviceTaintRule, resource.k8s.io/v1alpha3; PodCertificateRequest,
 * certificates.k8s.io/v1alpha1, with keys of each type and proofs of possession made by
 * node:crypto) as the reference's: a list of writes sent in order to a server with every alpha
 * and beta API on, each answered with the code, reason and causes kube-apiserver 1.34.4 gave it
 * (fixtures/alpha-validation-answers.json).
 *
 * A PodCertificateRequest's issuance is judged against the server's clock (its notBefore within
 * five minutes of now), so those writes are made here with a certificate issued now; their
 * answers are in the words and value formats the reference gave the same writes (times as
 * RFC 3339, lifetimes in nanoseconds).
 */
import { createPrivateKey, sign, webcrypto } from 'node:crypto';
import { startServer, type TestServer } from '../../helpers/server';
import { loadX509 } from '../../../server/x509-library';
import recorded from './fixtures/alpha-validation-answers.json';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({
    flags: ['--runtime-config=api/all=true', '--feature-gates=AllAlpha=true,AllBeta=true', '--controllers='],
  });
});
afterAll(async () => {
  await server?.stop();
});

// In order: later writes change objects earlier ones made.
it.each(recorded.steps.map((step, index) => [index, step.method, step.path, step] as const))(
  'step %i: %s %s answers as the reference',
  async (_index, method, path, { contentType, body, code, reason, causes }) => {
    const answer = await server.request(method, path, {
      body: JSON.stringify(body),
      headers: { 'content-type': contentType },
    });
    const status = answer.json<{ reason?: string; details?: { causes?: Record<string, string>[] } }>();
    expect([answer.status, status.reason ?? null]).toEqual([code, reason]);
    expect((status.details?.causes ?? []).map((cause) => [cause.field, cause.reason, cause.message])).toEqual(causes);
  },
);

describe('a PodCertificateRequest issued now', () => {
  const MINUTE = 60_000;
  const HOUR = 60 * MINUTE;
  const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const path = '/apis/certificates.k8s.io/v1alpha1/namespaces/default/podcertificaterequests';
  const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  type Json = Record<string, any>;

  const write = async (method: string, at: string, body: Json, contentType = 'application/merge-patch+json') => {
    const answer = await server.request(method, at, {
      body: JSON.stringify(body),
      headers: { 'content-type': contentType },
    });
    const status = answer.json<Json>();
    return [answer.status, ...(status.details?.causes ?? []).map((cause: Json) => `${cause.field}: ${cause.message}`)];
  };

  it('is issued once, with times the certificate and the clock agree with, and then never changes', async () => {
    const x509 = loadX509();
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
    const privateKey = createPrivateKey({
      key: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)),
      format: 'der',
      type: 'pkcs8',
    });
    const podUID = 'pod-uid-now';
    const notBefore = Math.floor(Date.now() / 1000) * 1000 - MINUTE;
    const certificate = async (lifetime: number) =>
      `${(
        await x509.X509CertificateGenerator.createSelfSigned({
          serialNumber: '01',
          name: 'CN=pod',
          notBefore: new Date(notBefore),
          notAfter: new Date(notBefore + lifetime),
          signingAlgorithm: ALGORITHM,
          keys,
        })
      ).toString('pem')}\n`;
    const created = await write(
      'POST',
      path,
      {
        apiVersion: 'certificates.k8s.io/v1alpha1',
        kind: 'PodCertificateRequest',
        metadata: { name: 'issued-now' },
        spec: {
          signerName: 'example.com/signer',
          podName: 'p',
          podUID,
          serviceAccountName: 'default',
          serviceAccountUID: 'sa',
          nodeName: 'n',
          nodeUID: 'nu',
          pkixPublicKey: Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey)).toString('base64'),
          proofOfPossession: sign('sha256', Buffer.from(podUID), privateKey).toString('base64'),
        },
      },
      'application/json',
    );
    expect(created).toEqual([201]);

    const day = await certificate(24 * HOUR);
    const issued = (chain: string, lifetime: number, beginRefreshAt: number) => ({
      status: {
        conditions: [
          { type: 'Issued', status: 'True', reason: 'Signed', message: '', lastTransitionTime: rfc3339(notBefore) },
        ],
        certificateChain: chain,
        notBefore: rfc3339(notBefore),
        notAfter: rfc3339(notBefore + lifetime),
        beginRefreshAt: rfc3339(beginRefreshAt),
      },
    });
    const status = `${path}/issued-now/status`;
    expect(
      await write('PATCH', status, issued(await certificate(30 * MINUTE), 30 * MINUTE, notBefore + 15 * MINUTE)),
    ).toEqual([
      422,
      `status.certificateChain: Invalid value: ${30 * MINUTE * 1_000_000}: leaf certificate lifetime must be >= 1 hour`,
    ]);
    expect(await write('PATCH', status, issued(day, 24 * HOUR, notBefore + 5 * MINUTE))).toEqual([
      422,
      `status.beginRefreshAt: Invalid value: "${rfc3339(notBefore + 5 * MINUTE)}": must be at least 10 minutes after status.notBefore`,
    ]);
    expect(await write('PATCH', status, issued(day, 24 * HOUR, notBefore + 12 * HOUR))).toEqual([200]);
    expect(await write('PATCH', status, issued(day, 24 * HOUR, notBefore + 13 * HOUR))).toEqual([
      422,
      'status: Invalid value: immutable after PodCertificateRequest is issued, denied, or failed',
    ]);
  });
});
