/**
 * The bundle's loader (server/bundled-main.ts) keeps a V8 code cache of what a start compiles:
 * taken once by the first start of a build, then used as it is by the next ones. A cache that
 * V8 refuses (damaged, or taken after the server changed V8's flags) would cost every start its
 * compiling again: it is replaced, and the start goes on. The cache lives under
 * NODE_COMPILE_CACHE, here a directory of the test's own, given to the server through `env`
 * (jest's process.env is the test's copy, which child processes do not inherit).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLED_MAIN, MAIN, ROOT, startCapstan, waitForExit, type RunningCapstan } from '../helpers/capstan-process';
import { waitUntil } from '../helpers/wait-for';

jest.setTimeout(120_000);

const BUNDLE = join(ROOT, 'dist', 'capstan.js');
let cacheRoot: string;
let dataDir: string;
/** Servers a test started; one a failed assertion left running is killed after it. */
const started: RunningCapstan[] = [];

beforeAll(() => {
  // A bundle older than the modules is a bare `tsc` since the last build: what it holds is not what is tested.
  if (statSync(BUNDLE).mtimeMs < statSync(MAIN).mtimeMs)
    throw new Error('dist/capstan.js is older than dist/server/main.js: run `npm run build`');
});

beforeEach(() => {
  cacheRoot = mkdtempSync(join(tmpdir(), 'capstan-code-cache-'));
  dataDir = mkdtempSync(join(tmpdir(), 'capstan-code-cache-data-'));
});

afterEach(async () => {
  for (const server of started.splice(0)) {
    if (server.process.exitCode !== null || server.process.signalCode !== null) continue;
    server.process.kill('SIGKILL');
    await waitForExit(server);
  }
  rmSync(cacheRoot, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

async function startBundle(environment: readonly string[] = []): Promise<RunningCapstan> {
  const server = await startCapstan(
    ['--data-dir', dataDir, '--secure-port', '0'],
    [],
    (argv) => ['env', ['-u', 'NODE_DISABLE_COMPILE_CACHE', `NODE_COMPILE_CACHE=${cacheRoot}`, ...environment, ...argv]],
    BUNDLED_MAIN,
  );
  started.push(server);
  return server;
}

async function stop(server: RunningCapstan): Promise<void> {
  server.process.kill('SIGTERM');
  expect(await waitForExit(server)).toBe(0);
}

function cacheFiles(): string[] {
  const dir = join(cacheRoot, 'capstan');
  try {
    return readdirSync(dir).map((name) => join(dir, name));
  } catch {
    return [];
  }
}

async function firstCache(): Promise<string> {
  // Until it is renamed, the one file is the start's partial `<name>.cache.<pid>`: wait for the name.
  const whole = (): boolean => {
    const files = cacheFiles();
    return files.length === 1 && files[0].endsWith('.cache');
  };
  await waitUntil('the start to write its code cache', whole, 30_000, 50);
  const [file] = cacheFiles();
  // Whole (written aside, then renamed), and more than the bundle's top level: megabytes.
  expect(statSync(file).size).toBeGreaterThan(1_000_000);
  return file;
}

it('is taken by the first start and used as it is by the next', async () => {
  const first = await startBundle();
  const file = await firstCache();
  const taken = readFileSync(file);
  // Written again, it would be a new file renamed over this one, even with the same bytes.
  const { ino, mtimeMs } = statSync(file);
  await stop(first);

  const second = await startBundle();
  // The second start's own cache would be written right after its start lines: wait past them.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await stop(second);
  expect(cacheFiles()).toEqual([file]);
  expect(statSync(file)).toMatchObject({ ino, mtimeMs });
  expect(readFileSync(file).equals(taken)).toBe(true);
});

it('replaces a cache V8 refuses, and the start goes on', async () => {
  const first = await startBundle();
  const file = await firstCache();
  await stop(first);
  const damaged = Buffer.alloc(4096, 0x5a);
  writeFileSync(file, damaged);

  const second = await startBundle();
  await waitUntil('the damaged cache to be replaced', () => statSync(file).size > 1_000_000, 30_000, 50);
  await stop(second);
  expect(cacheFiles()).toEqual([file]);
});

it('is not kept when NODE_DISABLE_COMPILE_CACHE says so, as Node keeps none', async () => {
  const server = await startBundle(['NODE_DISABLE_COMPILE_CACHE=1']);
  await new Promise((resolve) => setTimeout(resolve, 500));
  await stop(server);
  expect(cacheFiles()).toEqual([]);
});
