/**
 * What an idle server has loaded, read from the real process's module table when it exits: a
 * start with no admission policy, webhook, CRD validation rule or CEL in its authentication and
 * authorization keeps the CEL engine out, and the .proto parser that only the protobuf form of
 * `/openapi/v2` needs, the parser that names repeated keys in a JSON body, and the inflater of
 * SPDY header blocks; a restart, which finds its certificates, keeps the X.509 library out. Each
 * is loaded on first use (server/cel/lazy.ts, server/openapi/openapi-v2-protobuf.ts,
 * server/validation/decode.ts, server/kubelet/spdy-header-block.ts, server/x509-library.ts),
 * and idle memory counts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ON_DEMAND_PACKAGES } from '../../tools/bundle/bundle';
import { ensureBuilt, startCapstan, waitForExit } from '../helpers/capstan-process';
import { httpsRequest } from '../helpers/https-client';
import { waitUntil } from '../helpers/wait-for';

const READY_WAIT_MS = 10_000;

describe('an idle server', () => {
  let dir: string;

  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'capstan-idle-modules-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the server on `dataDir`, waits for /readyz, stops it, and returns the files it had loaded. */
  async function modulesLoadedByIdleStart(dataDir: string, probeName: string): Promise<string[]> {
    const listPath = join(dir, `${probeName}.json`);
    const probe = join(dir, `${probeName}.js`);
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listPath)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const server = await startCapstan(
      ['--data-dir', dataDir, '--secure-port', '0', '--shutdown-delay-duration', '0s'],
      ['--require', probe],
    );
    try {
      const caPem = readFileSync(join(dataDir, 'pki', 'ca.crt'), 'utf8');
      await waitUntil(
        '/readyz 200',
        async () => (await httpsRequest({ url: `${server.url}/readyz`, caPem })).status === 200,
        READY_WAIT_MS,
        100,
      );
    } finally {
      server.process.kill('SIGTERM');
      await waitForExit(server);
    }
    return JSON.parse(readFileSync(listPath, 'utf8')) as string[];
  }

  const loaded = (modules: readonly string[], fragment: string) => modules.some((file) => file.includes(fragment));

  it('has not loaded the CEL engine, the .proto parser, the JSON duplicate-key scanner, the SPDY inflater or, on a restart, the X.509 library', async () => {
    const dataDir = join(dir, 'data');
    const first = await modulesLoadedByIdleStart(dataDir, 'first');
    // The probe sees the server's modules at all (a check that would pass on an empty list proves nothing).
    expect(loaded(first, join('dist', 'server', 'control-plane.js'))).toBe(true);
    expect(loaded(first, join('node_modules', '@marcbachmann', 'cel-js'))).toBe(false);
    expect(loaded(first, join('dist', 'server', 'cel', 'environment.js'))).toBe(false);
    expect(loaded(first, join('node_modules', 'protobufjs', 'src', 'parse.js'))).toBe(false);
    expect(loaded(first, join('node_modules', 'jsonc-parser'))).toBe(false);
    expect(loaded(first, join('node_modules', 'fflate'))).toBe(false);
    // The first start issued the certificates with it.
    expect(loaded(first, join('node_modules', '@peculiar', 'x509'))).toBe(true);

    const restart = await modulesLoadedByIdleStart(dataDir, 'restart');
    expect(loaded(restart, join('node_modules', '@peculiar', 'x509'))).toBe(false);
    expect(loaded(restart, join('node_modules', '@marcbachmann', 'cel-js'))).toBe(false);
    // The bundle leaves these out as loaded on demand (tools/bundle/bundle.ts): one loaded by
    // every start would cost a resolution and a file read there, for no memory saved.
    expect(ON_DEMAND_PACKAGES.filter((name) => loaded(restart, join('node_modules', name, '')))).toEqual([]);
  });
});
