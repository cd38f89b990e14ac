/**
 * Start-up failures an operator can fix: each ends the process with one line on stderr naming
 * what failed, and a non-zero exit code (2 for flags, 1 for what the machine refused), never a
 * stack trace.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart, MAIN } from '../helpers/capstan-process';
import { freePort } from '../helpers/ports';

describe('start-up failures', () => {
  let dataDir: string;

  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-startup-'));
  });

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const expectOneLine = (result: { stderr: string }) => expect(result.stderr).not.toMatch(/^\s+at /m);

  it('a bad flag value', async () => {
    const result = await failingStart(['--secure-port', 'abc']);
    expect(result.code).toBe(2);
    expect(result.lastLine).toBe(
      'capstan: invalid argument "abc" for "--secure-port" flag: not a port number (run with --help for the list of flags)',
    );
    expectOneLine(result);
  });

  it('an unknown feature gate', async () => {
    const result = await failingStart(['--feature-gates', 'NoSuchGate=true']);
    expect(result.code).toBe(2);
    expect(result.lastLine).toBe(
      'capstan: unrecognized feature gate: NoSuchGate (run with --help for the list of flags)',
    );
    expectOneLine(result);
  });

  it('an unknown runtime-config group', async () => {
    const result = await failingStart([
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--runtime-config',
      'no.such.group/v1=true',
    ]);
    expect(result.code).toBe(2);
    expect(result.lastLine).toBe('capstan: invalid --runtime-config: unknown api groups no.such.group');
    expectOneLine(result);
  });

  it('a port in use', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const result = await failingStart(['--data-dir', dataDir, '--secure-port', String(port)]);
      expect(result.code).toBe(1);
      expect(result.lastLine).toBe(
        `capstan: cannot listen on 127.0.0.1:${port}: the address is already in use (choose another port with --secure-port)`,
      );
      expectOneLine(result);
    } finally {
      holder.close();
    }
  });

  it('a data dir that cannot be made', async () => {
    const file = join(dataDir, 'a-file');
    writeFileSync(file, '');
    const result = await failingStart(['--data-dir', join(file, 'data'), '--secure-port', '0']);
    expect(result.code).toBe(1);
    expect(result.lastLine).toBe(
      `capstan: creating the data dir ${join(file, 'data')} (--data-dir): ${join(file, 'data')}: a parent is not a directory`,
    );
    expectOneLine(result);
  });

  it('a certificate file that is missing, and one that is not PEM', async () => {
    const missing = await failingStart([
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--tls-cert-file',
      '/no/such.crt',
      '--tls-private-key-file',
      '/no/such.key',
    ]);
    expect(missing.code).toBe(1);
    expect(missing.lastLine).toBe('capstan: reading the certificates: /no/such.crt: no such file or directory');
    expectOneLine(missing);

    const garbage = join(dataDir, 'garbage.pem');
    writeFileSync(garbage, 'not a certificate\n');
    const invalid = await failingStart([
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--tls-cert-file',
      garbage,
      '--tls-private-key-file',
      garbage,
    ]);
    expect(invalid.code).toBe(1);
    expect(invalid.lastLine).toMatch(
      /^capstan: loading the serving certificate: not a valid PEM certificate or key \(.+\)$/,
    );
    expectOneLine(invalid);
  });

  it('TLS flags the reference refuses at start, and an SNI certificate that is missing', async () => {
    const http2 = await failingStart([
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
    ]);
    expect(http2.code).toBe(2);
    expect(http2.lastLine).toBe(
      'capstan: loading the serving certificate: error configuring http2: http2: TLSConfig.CipherSuites is missing an HTTP/2-required AES_128_GCM_SHA256 cipher (need at least one of TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 or TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256)',
    );
    expectOneLine(http2);
    const sni = await failingStart([
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--tls-sni-cert-key=/no/such.crt,/no/such.key',
    ]);
    expect(sni.code).toBe(1);
    expect(sni.lastLine).toBe('capstan: loading the serving certificate: /no/such.crt: no such file or directory');
    expectOneLine(sni);
  });

  it('an etcd that does not answer: the endpoint and what was tried', async () => {
    const port = await freePort();
    const result = await failingStart([
      '--data-dir',
      dataDir,
      '--secure-port',
      '0',
      '--etcd-servers',
      `http://127.0.0.1:${port}`,
    ]);
    expect(result.code).toBe(1);
    expect(result.lastLine).toMatch(
      new RegExp(
        `^capstan: opening etcd at http://127\\.0\\.0\\.1:${port} \\(--etcd-servers\\): .*ECONNREFUSED 127\\.0\\.0\\.1:${port}`,
      ),
    );
    expectOneLine(result);
  });

  it('a Node.js older than 22 says which Node is needed', () => {
    // The machine's own Node (20 on these machines) is the honest witness; where it is new
    // enough, an older version is simulated before the server's first line runs.
    const machineNode = '/usr/bin/node';
    const machineMajor = Number(
      spawnSync(machineNode, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.split('.')[0],
    );
    const older = machineMajor > 0 && machineMajor < 22;
    const preload = join(dataDir, 'node-20.js');
    writeFileSync(
      preload,
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.11.1' } });\n",
    );
    const result = older
      ? spawnSync(machineNode, [MAIN, '--help'], { encoding: 'utf8', timeout: 10_000 })
      : spawnSync(process.execPath, ['--require', preload, MAIN, '--help'], { encoding: 'utf8', timeout: 10_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^capstan: Node\.js 20\.\S+ is too old: it needs Node\.js 22 or newer/);
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
