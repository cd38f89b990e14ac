/**
 * The HTTPS server's TLS flags, over real handshakes: `--tls-min-version`, `--tls-cipher-suites`
 * (Go's names, served as OpenSSL's suites) and `--tls-sni-cert-key` (the certificate the client's
 * server name picks, client certificates still verified); and `--goaway-chance`, which closes
 * the connection after the answer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type ConnectionOptions } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { createServer, type CapstanServer } from '../../../server/app';
import { parseFlags, type ServerOptions } from '../../../server/config/flags';
import { issueLeaf } from '../../../server/pki/certificates';
import { generatedPki, type Pki } from '../../../server/pki/pki';

let dataDir: string;
let pki: Pki;
const running: CapstanServer[] = [];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'capstan-serving-tls-'));
  pki = await generatedPki({ dataDir, bindAddress: '127.0.0.1' });
});
afterAll(async () => {
  await Promise.all(running.map((server) => server.shutdown()));
  rmSync(dataDir, { recursive: true, force: true });
});

function flagsOf(argv: string[]): ServerOptions {
  const parsed = parseFlags(argv);
  if (!('options' in parsed)) throw new Error('expected options');
  return { ...parsed.options, securePort: 0, dataDir };
}

async function serve(argv: string[]): Promise<number> {
  const server = createServer({
    options: flagsOf(argv),
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
  });
  running.push(server);
  return (await server.listen()).port;
}

interface Handshake {
  readonly protocol?: string | null;
  readonly cipher?: string;
  readonly fingerprint?: string;
  readonly error?: string;
}

/** A TLS handshake, then an HTTP request on it when `path` is given (its status line back). */
function handshake(
  port: number,
  options: ConnectionOptions,
  path?: string,
): Promise<Handshake & { readonly statusLine?: string }> {
  return new Promise((resolve) => {
    const socket = connect(
      { host: '127.0.0.1', port, ca: pki.ca.certPem, rejectUnauthorized: false, ...options },
      () => {
        const result = {
          protocol: socket.getProtocol(),
          cipher: socket.getCipher().name,
          fingerprint: socket.getPeerX509Certificate()?.fingerprint256,
        };
        if (path === undefined) {
          socket.destroy();
          resolve(result);
          return;
        }
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('end', () => resolve({ ...result, statusLine: text.split('\r\n')[0] }));
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      },
    );
    socket.on('error', (error) => resolve({ error: error.message }));
  });
}

describe('--tls-min-version', () => {
  it('serves TLS 1.2 and 1.3 by default, and only 1.3 when asked', async () => {
    const defaults = await serve([]);
    expect((await handshake(defaults, { maxVersion: 'TLSv1.2' })).protocol).toBe('TLSv1.2');
    expect(
      (await handshake(defaults, { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' })).error,
    ).toBeDefined();
    const tls13 = await serve(['--tls-min-version=VersionTLS13']);
    expect((await handshake(tls13, { maxVersion: 'TLSv1.2' })).error).toBeDefined();
    expect((await handshake(tls13, {})).protocol).toBe('TLSv1.3');
  });

  it('serves TLS 1.0 when asked, as Go does', async () => {
    const port = await serve(['--tls-min-version=VersionTLS10']);
    expect(
      (await handshake(port, { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT@SECLEVEL=0' })).protocol,
    ).toBe('TLSv1');
  });
});

describe('--tls-cipher-suites', () => {
  it("serves Go's default suites, not OpenSSL's, in Go's order", async () => {
    const port = await serve([]);
    expect(
      (await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-SHA384' })).error,
    ).toBeDefined();
    expect(
      (
        await handshake(port, {
          maxVersion: 'TLSv1.2',
          ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-AES128-GCM-SHA256',
        })
      ).cipher,
    ).toBe('ECDHE-ECDSA-AES128-GCM-SHA256');
  });

  it('offers TLS 1.2 clients the listed suites only and leaves TLS 1.3 as it is', async () => {
    const port = await serve([
      '--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
    ]);
    expect((await handshake(port, { maxVersion: 'TLSv1.2' })).cipher).toBe('ECDHE-ECDSA-AES128-GCM-SHA256');
    expect((await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305' })).cipher).toBe(
      'ECDHE-ECDSA-CHACHA20-POLY1305',
    );
    expect(
      (await handshake(port, { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).error,
    ).toBeDefined();
    expect((await handshake(port, {})).cipher).toBe('TLS_AES_256_GCM_SHA384');
  });

  it('refuses to start on a list without an HTTP/2-required suite', () => {
    expect(() =>
      createServer({
        options: flagsOf(['--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384']),
        tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
      }),
    ).toThrow(
      'error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher',
    );
  });
});

describe('--tls-sni-cert-key', () => {
  it('picks the certificate by the server name: explicit names, names from the certificate, wildcards, else the default', async () => {
    const explicit = await issueLeaf({
      ca: pki.ca,
      subject: 'CN=explicit',
      usage: 'server',
      dnsNames: ['ignored.example'],
      validDays: 1,
    });
    const named = await issueLeaf({
      ca: pki.ca,
      subject: 'CN=cn.example',
      usage: 'server',
      dnsNames: ['san.example', '*.wild.example'],
      ipAddresses: ['127.0.0.9'],
      validDays: 1,
    });
    // Taken by name from `named` too, but an explicit name wins.
    const contested = await issueLeaf({ ca: pki.ca, subject: 'CN=contested', usage: 'server', validDays: 1 });
    const files = (name: string, certificate: { certPem: string; keyPem: string }) => {
      writeFileSync(join(dataDir, `${name}.crt`), certificate.certPem);
      writeFileSync(join(dataDir, `${name}.key`), certificate.keyPem);
      return `${join(dataDir, `${name}.crt`)},${join(dataDir, `${name}.key`)}`;
    };
    const port = await serve([
      `--tls-sni-cert-key=${files('explicit', explicit)}:*.sni.example,exact.example`,
      `--tls-sni-cert-key=${files('named', named)}`,
      `--tls-sni-cert-key=${files('contested', contested)}:san.example`,
    ]);
    const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
    const served = async (servername: string) => (await handshake(port, { servername })).fingerprint;
    expect(await served('a.sni.example')).toBe(fingerprint(explicit.certPem));
    expect(await served('EXACT.example')).toBe(fingerprint(explicit.certPem));
    expect(await served('ignored.example')).toBe(fingerprint(pki.serving.certPem));
    expect(await served('cn.example')).toBe(fingerprint(named.certPem));
    expect(await served('x.wild.example')).toBe(fingerprint(named.certPem));
    expect(await served('san.example')).toBe(fingerprint(contested.certPem));
    expect(await served('a.b.sni.example')).toBe(fingerprint(pki.serving.certPem));
    expect(await served('elsewhere.example')).toBe(fingerprint(pki.serving.certPem));
    expect((await handshake(port, {})).fingerprint).toBe(fingerprint(pki.serving.certPem));
    // Client certificates are still verified behind an SNI certificate: the admin reads /metrics.
    const asAdmin = await handshake(
      port,
      { servername: 'cn.example', cert: pki.admin.certPem, key: pki.admin.keyPem },
      '/metrics',
    );
    expect(asAdmin.statusLine).toBe('HTTP/1.1 200 OK');
  });
});

describe('--tls-sni-cert-key with an IP', () => {
  it('serves a client that sends no server name the certificate named by the address it reached', async () => {
    const byIp = await issueLeaf({
      ca: pki.ca,
      subject: 'CN=by-ip',
      usage: 'server',
      ipAddresses: ['127.0.0.1'],
      validDays: 1,
    });
    writeFileSync(join(dataDir, 'ip.crt'), byIp.certPem);
    writeFileSync(join(dataDir, 'ip.key'), byIp.keyPem);
    const port = await serve([`--tls-sni-cert-key=${join(dataDir, 'ip.crt')},${join(dataDir, 'ip.key')}:127.0.0.1`]);
    const fingerprint = (pem: string) => new X509Certificate(pem).fingerprint256;
    expect((await handshake(port, {})).fingerprint).toBe(fingerprint(byIp.certPem));
    expect((await handshake(port, { servername: 'elsewhere.example' })).fingerprint).toBe(
      fingerprint(pki.serving.certPem),
    );
    // Verified by the CA, client certificates still taken.
    const asAdmin = await handshake(
      port,
      { rejectUnauthorized: true, cert: pki.admin.certPem, key: pki.admin.keyPem },
      '/metrics',
    );
    expect(asAdmin.statusLine).toBe('HTTP/1.1 200 OK');
  });
});

describe('--goaway-chance', () => {
  /** Requests on one kept-alive connection until an answer says `Connection: close` (or `max` answers). */
  const answersUntilClose = (port: number, max: number) =>
    new Promise<{ readonly answers: number; readonly closed: boolean }>((resolve, reject) => {
      const socket = connect(
        {
          host: '127.0.0.1',
          port,
          ca: pki.ca.certPem,
          cert: pki.admin.certPem,
          key: pki.admin.keyPem,
          rejectUnauthorized: false,
        },
        () => ask(),
      );
      const ask = () => socket.write('GET /version HTTP/1.1\r\nHost: x\r\n\r\n');
      let buffered = '';
      let answers = 0;
      socket.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const headerEnd = buffered.indexOf('\r\n\r\n');
        if (headerEnd < 0) return;
        const head = buffered.slice(0, headerEnd);
        const length = Number(/^content-length: (\d+)$/im.exec(head)?.[1] ?? 0);
        if (buffered.length < headerEnd + 4 + length) return;
        buffered = buffered.slice(headerEnd + 4 + length);
        answers++;
        const closed = /^connection: close$/im.test(head);
        if (closed || answers === max) {
          socket.destroy();
          resolve({ answers, closed });
        } else ask();
      });
      socket.on('error', reject);
    });

  it('closes the connection after the answer on that fraction of requests, and never at 0', async () => {
    expect(await answersUntilClose(await serve([]), 200)).toEqual({ answers: 200, closed: false });
    // At 2 %, 1,000 answers on one connection without a close happen with probability 0.98^1000 ≈ 2e-9.
    const withChance = await answersUntilClose(await serve(['--goaway-chance=0.02']), 1_000);
    expect(withChance.closed).toBe(true);
  });
});
