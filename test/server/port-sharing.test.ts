/**
 * `--permit-port-sharing`: servers that all bind their secure port with SO_REUSEPORT share it,
 * the kernel spreading connections over them (replicas on one host, one port); without it the
 * port is refused to a second server, as the reference's is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeListensWithReusePort } from '../../server/config/flags';
import { failingStart } from '../helpers/capstan-process';
import { freePort } from '../helpers/ports';
import { startServer, type TestServer } from '../helpers/server';

describe('--permit-port-sharing', () => {
  let port: number;
  let first: TestServer;
  let second: TestServer;
  beforeAll(async () => {
    port = await freePort();
    first = await startServer({ flags: [`--secure-port=${port}`, '--permit-port-sharing'] });
    second = await startServer({ flags: [`--secure-port=${port}`, '--permit-port-sharing'] });
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('lets two servers listen on one port, which stays served when one goes', async () => {
    expect(new URL(first.url).port).toBe(String(port));
    expect(new URL(second.url).port).toBe(String(port));
    expect((await first.request('GET', '/readyz')).status).toBe(200);
    // The second alone serves the port once the first is gone.
    await first.stop();
    expect((await second.request('GET', '/readyz')).status).toBe(200);
  });

  it('is needed by every server sharing the port: without it the port is taken', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'capstan-port-'));
    try {
      const refused = await failingStart(['--data-dir', dataDir, `--secure-port=${port}`]);
      expect(refused.code).not.toBe(0);
      expect(refused.lastLine).toContain(`cannot listen on 127.0.0.1:${port}: the address is already in use`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('needs a Node that binds with SO_REUSEPORT', () => {
    expect(['22.11.0', '22.12.0', '23.0.0', '23.1.0', '24.21.0'].map(nodeListensWithReusePort)).toEqual([
      false,
      true,
      false,
      true,
      true,
    ]);
  });
});
