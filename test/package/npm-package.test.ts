/**
 * The npm package as a user gets it: `npm pack` (its prepack builds the server) and
 * `npm install -g` of the tarball give the `capstan` and `kube-apiserver` commands, which run
 * from the installed files alone. The pack runs in a copy of the sources, so that its build
 * does not rewrite dist/ under the servers other tests are starting; the install goes into a
 * temporary prefix, from npm's cache where it can (`--prefer-offline`).
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
/** What prepack's build (tools/ import test helpers) and the package's files need, without dist/ or node_modules. */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.server.json',
  'README.md',
  'bin',
  'api',
  'server',
  'storage',
  'tools',
  'test',
];
const NPM_FLAGS = ['--no-audit', '--no-fund', '--loglevel=error'];

jest.setTimeout(300_000);

let scratch: string;
let prefix: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'capstan-npm-package-'));
  const source = join(scratch, 'source');
  mkdirSync(source);
  for (const entry of SOURCES)
    cpSync(join(ROOT, entry), join(source, entry), { recursive: true, verbatimSymlinks: true });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  const packed = Date.now();
  await run('npm', ['pack', '--pack-destination', scratch, ...NPM_FLAGS], { cwd: source });
  const tarball = readdirSync(scratch).find((name) => /^capstan-.*\.tgz$/.test(name));
  if (tarball === undefined) throw new Error(`npm pack left no tarball in ${scratch}`);
  const installed = Date.now();
  prefix = join(scratch, 'prefix');
  await run('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', ...NPM_FLAGS, join(scratch, tarball)], {
    cwd: scratch,
  });
  process.stdout.write(`npm pack ${installed - packed} ms, npm install -g ${Date.now() - installed} ms\n`);
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('the tarball installs both commands, and each answers --help under its own name', async () => {
  for (const command of ['capstan', 'kube-apiserver']) {
    const { stdout } = await run(join(prefix, 'bin', command), ['--help'], { cwd: scratch });
    expect(stdout).toMatch(new RegExp(`^Usage: ${command} \\[flags\\]`));
    expect(stdout).toContain('--cert-dir');
  }
});

test('the installed kube-apiserver serves from the packaged files, writing only into its directories', async () => {
  const cwd = join(scratch, 'caller');
  mkdirSync(cwd);
  const dataDir = join(scratch, 'data');
  const child = spawn(
    join(prefix, 'bin', 'kube-apiserver'),
    ['--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, `--cert-dir=${join(dataDir, 'pki')}`],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(`code ${code}, signal ${signal}`)),
  );
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not started within 60 s:\n${output}`)), 60_000);
      const check = () => {
        if (/started in \d+ ms/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on('data', check);
      child.stderr.on('data', check);
      void exited.then((how) => reject(new Error(`exited (${how}):\n${output}`)));
    });
  } finally {
    child.kill('SIGTERM');
  }
  // The SIGTERM sequence ends with exit code 0; the output tells what else happened.
  expect(`${await exited}\n${output}`).toMatch(/^code 0, signal null\n/);
  expect(readdirSync(cwd)).toEqual([]);
  // With --cert-dir every generated file is there, the admin kubeconfig included; the data dir holds the store.
  expect(readdirSync(dataDir).sort()).toEqual(['capstan.db', 'pki']);
  expect(readdirSync(join(dataDir, 'pki'))).toContain('admin.kubeconfig');
});
