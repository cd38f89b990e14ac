/**
 * A CertificateSigningRequest's status.certificate, written through the status subresource of a
 * whole replica in this process: the answers are those kube-apiserver v1.34.4 gave to the same
 * writes (PEM CERTIFICATE blocks only, without headers, that parse; once issued, never changed).
 */
import { certificateRequest, selfSignedCertificate } from '../../helpers/certificate-request';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

interface CSR {
  kind: string;
  metadata: { name: string };
  status: { certificate?: string };
  message?: string;
  details?: { causes?: unknown[] };
}

const pem = (type: string, body: string) =>
  Buffer.from(`-----BEGIN ${type}-----\n${body}-----END ${type}-----\n`).toString('base64');

describe('CertificateSigningRequest status.certificate', () => {
  let created: CSR;

  const server = inProcessServerForSuite();

  beforeAll(async () => {
    const answer = await server.request('POST', CSRS, {
      body: JSON.stringify({
        apiVersion: 'certificates.k8s.io/v1',
        kind: 'CertificateSigningRequest',
        metadata: { name: 'c' },
        spec: { request: certificateRequest(), signerName: 'example.com/signer', usages: ['client auth'] },
      }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(answer.status).toBe(201);
    created = answer.json<CSR>();
  }, 60_000);

  const write = async (path: string, base: CSR, certificate: string | undefined) => {
    const answer = await server.request('PUT', path, {
      body: JSON.stringify({ ...base, status: { ...base.status, certificate } }),
      headers: { 'Content-Type': 'application/json' },
    });
    return { status: answer.status, body: answer.json<CSR>() };
  };
  const writeStatus = (base: CSR, certificate: string | undefined) => write(`${CSRS}/c/status`, base, certificate);
  const refusal = (detail: string, reason = 'FieldValueInvalid') => ({
    message: `CertificateSigningRequest.certificates.k8s.io "c" is invalid: status.certificate: ${detail}`,
    causes: [{ reason, message: detail, field: 'status.certificate' }],
  });
  const invalidData = (problem: string) => refusal(`Invalid value: "<certificate data>": ${problem}`);

  it.each([
    ['no PEM at all', 'YWJj', 'must contain at least one CERTIFICATE PEM block'],
    [
      'another block type',
      pem('RSA PRIVATE KEY', 'YWJj\n'),
      'only CERTIFICATE PEM blocks are allowed, found "RSA PRIVATE KEY"',
    ],
    [
      'a block with headers',
      pem('CERTIFICATE', 'Proc-Type: 4,ENCRYPTED\n\nYWJj\n'),
      'no PEM block headers are permitted',
    ],
    ['a block that does not parse', pem('CERTIFICATE', 'YWJj\n'), 'x509: malformed certificate'],
    ['an empty block', pem('CERTIFICATE', ''), 'found CERTIFICATE PEM block containing 0 certificates'],
  ])('refuses %s', async (_name, certificate, problem) => {
    const answer = await writeStatus(created, certificate);
    expect(answer.status).toBe(422);
    expect({ message: answer.body.message, causes: answer.body.details?.causes }).toEqual(invalidData(problem));
  });

  it('takes a certificate once, and keeps it', async () => {
    const first = selfSignedCertificate();
    const set = await writeStatus(created, first);
    expect(set.status).toBe(200);
    expect(set.body.status.certificate).toBe(first);
    expect((await writeStatus(set.body, first)).status).toBe(200);
    const modified = refusal('Forbidden: updates may not modify existing certificate content', 'FieldValueForbidden');
    for (const next of [selfSignedCertificate(), undefined]) {
      const answer = await writeStatus(set.body, next);
      expect(answer.status).toBe(422);
      expect({ message: answer.body.message, causes: answer.body.details?.causes }).toEqual(modified);
    }
    // An update of the request keeps the stored status, certificate included.
    const main = await write(
      `${CSRS}/c`,
      (await server.request('GET', `${CSRS}/c`)).json<CSR>(),
      selfSignedCertificate(),
    );
    expect(main.status).toBe(200);
    expect(main.body.status.certificate).toBe(first);
  });
});
