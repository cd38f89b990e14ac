/**
 * The README's kubectl demo, as written: each command of its "Try it with kubectl" block runs,
 * in order, with the real kubectl, in a directory where a server started as `make run` starts
 * it (the embedded store, its data dir `data` there) is serving, and each succeeds. An edit of
 * the README that breaks a command, or a server change that breaks the demo, fails here.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureBuilt, startCapstan, waitForExit, type RunningCapstan } from '../helpers/capstan-process';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';

jest.setTimeout(120_000);

/** The command lines of the first `sh` block after the README heading `heading`. */
function readmeCommands(heading: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`no heading "## ${heading}" in README.md`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at));
  if (block === null) throw new Error(`no sh block under "## ${heading}" in README.md`);
  return block[1].split('\n').filter((line) => line.trim() !== '');
}

let work: string;
let server: RunningCapstan;

beforeAll(async () => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'capstan-readme-'));
  // `kubectl` on the PATH, as the README's reader has it.
  mkdirSync(join(work, 'bin'));
  symlinkSync(KUBECTL, join(work, 'bin', 'kubectl'));
  server = await startCapstan(['--data-dir', join(work, 'data'), '--secure-port', '0']);
});

afterAll(async () => {
  if (server !== undefined) {
    server.process.kill('SIGTERM');
    await waitForExit(server);
  }
  rmSync(work, { recursive: true, force: true });
});

test('the kubectl demo runs as written, against the admin kubeconfig make run writes', async () => {
  const commands = readmeCommands('Try it with kubectl');
  expect(commands.length).toBeGreaterThanOrEqual(3);
  const outputs: string[] = [];
  for (const command of commands) {
    expect(command).toMatch(/^kubectl --kubeconfig data\/admin\.kubeconfig /);
    const { stdout } = await run('/bin/sh', ['-c', command], {
      cwd: work,
      env: { ...process.env, PATH: `${join(work, 'bin')}:${process.env.PATH}` },
    });
    outputs.push(stdout);
  }
  // What the demo shows its reader: the deployment it made, listed, and a field explained.
  expect(outputs.join('')).toMatch(/^demo\s+web\s/m);
  expect(outputs.join('')).toMatch(/FIELD:\s+replicas/);
});
