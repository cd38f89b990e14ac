import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';
import { generatedPki, servingPki } from '../../../server/pki/pki';

describe('generatedPki', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-pki-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates a CA, a serving certificate and the admin certificate, then reuses them', async () => {
    const first = await generatedPki({ dataDir, bindAddress: '127.0.0.1' });
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

    const second = await generatedPki({ dataDir, bindAddress: '127.0.0.1' });
    expect(second).toEqual(first);
  });

  it("names the kubernetes Service's addresses and names, as the reference's generated certificate", async () => {
    const pki = await generatedPki({ dataDir, bindAddress: '127.0.0.1', alternateIPs: ['10.96.0.1', '192.0.2.10'] });
    const serving = new X509Certificate(pki.serving.certPem);
    for (const ip of ['10.96.0.1', '192.0.2.10', '127.0.0.1']) expect(serving.checkIP(ip)).toBe(ip);
    for (const name of ['kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'localhost'])
      expect(serving.checkHost(name)).toBe(name);
  });

  it('reissues the serving certificate when the bind address is not among its names', async () => {
    const before = await generatedPki({ dataDir, bindAddress: '127.0.0.1' });
    const after = await generatedPki({ dataDir, bindAddress: '127.0.0.2' });
    expect(after.serving.certPem).not.toBe(before.serving.certPem);
    expect(new X509Certificate(after.serving.certPem).checkIP('127.0.0.2')).toBe('127.0.0.2');
    expect(after.ca).toEqual(before.ca);
  });
});

describe('servingPki', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-serving-pki-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  async function theirPair(dir: string) {
    mkdirSync(dir);
    const theirs = await issueCa({ commonName: 'envtest-environment', validDays: 1 });
    const pair = await issueLeaf({
      ca: theirs,
      subject: 'CN=localhost',
      usage: 'server',
      ipAddresses: ['127.0.0.1'],
      validDays: 1,
    });
    writeFileSync(join(dir, 'apiserver.crt'), pair.certPem);
    writeFileSync(join(dir, 'apiserver.key'), pair.keyPem);
    return pair;
  }

  it('with --cert-dir holding a pair another CA signed, serves it as found and writes nothing, as the reference', async () => {
    const certDir = join(dataDir, 'envtest-certs');
    const pair = await theirPair(certDir);
    const clientCa = join(dataDir, 'client-ca.crt');
    writeFileSync(clientCa, pair.certPem);
    const unused = join(dataDir, 'unused-data-dir');

    const pki = await servingPki({ dataDir: unused, certDir, bindAddress: '127.0.0.2', clientCaFile: clientCa });
    expect(pki.serving).toEqual(pair);
    expect(pki.generated).toBeUndefined();
    expect(pki.clientCaPem).toBe(pair.certPem);
    expect(readdirSync(certDir).sort()).toEqual(['apiserver.crt', 'apiserver.key']);
    expect(readdirSync(dataDir)).not.toContain('unused-data-dir');
  });

  it('with --tls-cert-file and no --client-ca-file, asks no client CA and writes nothing', async () => {
    const certDir = join(dataDir, 'tls-files');
    const pair = await theirPair(certDir);
    const pki = await servingPki({
      dataDir,
      certDir: join(dataDir, 'cert-dir-never-made'),
      bindAddress: '127.0.0.1',
      tlsCertFile: join(certDir, 'apiserver.crt'),
      tlsPrivateKeyFile: join(certDir, 'apiserver.key'),
    });
    expect(pki).toEqual({ serving: pair, clientCaPem: undefined });
    expect(readdirSync(dataDir)).not.toContain('cert-dir-never-made');
  });

  it("renews a serving pair of its own CA rather than taking it for the operator's", async () => {
    const certDir = join(dataDir, 'ours');
    const first = await servingPki({ dataDir, certDir, bindAddress: '127.0.0.1' });
    expect(first.generated).toBeDefined();
    const moved = await servingPki({ dataDir, certDir, bindAddress: '127.0.0.3' });
    expect(moved.generated?.ca).toEqual(first.generated?.ca);
    expect(new X509Certificate(moved.serving.certPem).checkIP('127.0.0.3')).toBe('127.0.0.3');
  });
});
