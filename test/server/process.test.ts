/**
 * The compiled server as a process: first and later starts, the admin kubeconfig with the real
 * kubectl, flag errors, and the SIGTERM sequence.
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, MAIN, startCapstan, waitForExit, type RunningCapstan } from '../helpers/capstan-process';
import { httpsRequest } from '../helpers/https-client';
import { retryUntil } from '../helpers/wait-for';

const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

describe('the capstan process', () => {
  let dataDir: string;
  const running: RunningCapstan[] = [];

  beforeAll(() => {
    ensureBuilt();
    dataDir = mkdtempSync(join(tmpdir(), 'capstan-process-'));
  });

  afterAll(async () => {
    for (const server of running) {
      server.process.kill('SIGKILL');
      await waitForExit(server);
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(args: string[]): Promise<RunningCapstan> {
    const server = await startCapstan(['--data-dir', dataDir, '--secure-port', '0', ...args]);
    running.push(server);
    return server;
  }

  async function stop(server: RunningCapstan): Promise<number | null> {
    server.process.kill('SIGTERM');
    return waitForExit(server);
  }

  it('starts, writes a kubeconfig that kubectl uses, and starts again on the same certificates', async () => {
    const first = await start([]);
    expect(first.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(first.kubeconfig).toBe(join(dataDir, 'admin.kubeconfig'));
    const { stdout } = await promisify(execFile)(KUBECTL, ['--kubeconfig', first.kubeconfig, 'version', '-o', 'json'], {
      timeout: 20_000,
    });
    expect(JSON.parse(stdout).serverVersion).toMatchObject({
      major: '1',
      minor: '34',
      gitVersion: expect.stringMatching(/^v1\.34\.0/),
    });
    const ca = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    expect(await stop(first)).toBe(0);

    const second = await start([]);
    expect(readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8')).toBe(ca);
    const version = await httpsRequest({ url: `${second.url}/version`, caPem: ca });
    expect(version.status).toBe(200);
    expect(await stop(second)).toBe(0);

    // Reported for the record (the test's own timing includes spawning node).
    console.log(
      `start-up: first start ${Math.round(first.spawnToListeningMs)} ms from spawn (server reports ${first.reportedStartMs} ms, ` +
        `certificates generated); later start ${Math.round(second.spawnToListeningMs)} ms from spawn (server reports ${second.reportedStartMs} ms)`,
    );
    expect(second.spawnToListeningMs).toBeLessThan(5_000);
    // The first start says what it does; both end with where to go next.
    expect(first.output()).toContain(`generating certificates in ${join(dataDir, 'pki')}`);
    expect(second.output()).not.toContain('generating certificates');
    expect(second.output()).toContain(
      `capstan is serving ${second.url}; try: kubectl --kubeconfig ${second.kubeconfig} get namespaces`,
    );
  });

  it('on SIGTERM fails readiness at once, serves through the shutdown delay, then exits 0', async () => {
    const server = await start(['--shutdown-delay-duration=1s']);
    const caPem = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
    expect((await httpsRequest({ url: `${server.url}/readyz`, caPem })).status).toBe(200);
    const signalledAt = Date.now();
    server.process.kill('SIGTERM');
    // Bounded poll: the signal arrives asynchronously.
    const ready = await retryUntil(
      () => httpsRequest({ url: `${server.url}/readyz`, caPem }),
      (answer) => answer.status !== 200,
      500,
      25,
    );
    expect(ready.status).toBe(500);
    expect((await httpsRequest({ url: `${server.url}/livez`, caPem })).status).toBe(200);
    expect(await waitForExit(server)).toBe(0);
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(1000);
    expect(server.output()).toContain('SIGTERM received: shutting down');
  });

  it('rejects an unknown flag with exit code 2', () => {
    const result = spawnSync(process.execPath, [MAIN, '--no-such-flag=1'], { encoding: 'utf8', timeout: 10_000 });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('capstan: unknown flag: --no-such-flag (run with --help for the list of flags)\n');
  });
});
