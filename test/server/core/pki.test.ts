import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';
import { ensurePki } from '../../../server/pki/pki';

describe('ensurePki', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-pki-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates a CA, a serving certificate and the admin certificate, then reuses them', async () => {
    const first = await ensurePki({ dataDir, bindAddress: '127.0.0.1' });
    const ca = new X509Certificate(first.ca.certPem);
    const serving = new X509Certificate(first.serving.certPem);
    const admin = new X509Certificate(first.admin.certPem);

    expect(ca.ca).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(admin.verify(ca.publicKey)).toBe(true);
    expect(serving.checkHost('localhost')).toBe('localhost');
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkIP('::1')).toBe('::1');
    expect(admin.subject.split('\n').sort()).toEqual(['CN=kubernetes-admin', 'O=system:masters']);
    expect(first.clientCaPem).toBe(first.ca.certPem);
    for (const key of ['ca.key', 'apiserver.key', 'admin.key']) {
      expect(statSync(join(dataDir, 'pki', key)).mode & 0o777).toBe(0o600);
    }

    const second = await ensurePki({ dataDir, bindAddress: '127.0.0.1' });
    expect(second).toEqual(first);
  });

  it("names the kubernetes Service's addresses and names, as the reference's generated certificate", async () => {
    const pki = await ensurePki({ dataDir, bindAddress: '127.0.0.1', alternateIPs: ['10.96.0.1', '192.0.2.10'] });
    const serving = new X509Certificate(pki.serving.certPem);
    for (const ip of ['10.96.0.1', '192.0.2.10', '127.0.0.1']) expect(serving.checkIP(ip)).toBe(ip);
    for (const name of ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'localhost']) expect(serving.checkHost(name)).toBe(name);
  });

  it('reissues the serving certificate when the bind address is not among its names', async () => {
    const before = await ensurePki({ dataDir, bindAddress: '127.0.0.1' });
    const after = await ensurePki({ dataDir, bindAddress: '127.0.0.2' });
    expect(after.serving.certPem).not.toBe(before.serving.certPem);
    expect(new X509Certificate(after.serving.certPem).checkIP('127.0.0.2')).toBe('127.0.0.2');
    expect(after.ca).toEqual(before.ca);
  });

  it('with --cert-dir, serves a pair another CA signed as found, and writes only there', async () => {
    const certDir = join(dataDir, 'envtest-certs');
    mkdirSync(certDir);
    const theirs = await issueCa({ commonName: 'envtest-environment', validDays: 1 });
    const pair = await issueLeaf({ ca: theirs, subject: 'CN=localhost', usage: 'server', ipAddresses: ['127.0.0.1'], validDays: 1 });
    writeFileSync(join(certDir, 'apiserver.crt'), pair.certPem);
    writeFileSync(join(certDir, 'apiserver.key'), pair.keyPem);
    const unused = join(dataDir, 'unused-data-dir');

    const pki = await ensurePki({ dataDir: unused, certDir, bindAddress: '127.0.0.2' });
    expect(pki.serving).toEqual(pair);
    expect(pki.servingSignedByCa).toBe(false);
    expect(readdirSync(certDir).sort()).toEqual(['admin.crt', 'admin.key', 'apiserver.crt', 'apiserver.key', 'ca.crt', 'ca.key']);
    expect(readdirSync(dataDir)).not.toContain('unused-data-dir');
  });
});
