/**
 * The README's first command as a new user meets it: a fresh clone's `make run` on a machine
 * with npm's cache warm but no etcd, haproxy, helm or Go on the PATH serves within 90 s, and a
 * second `make run` with nothing changed serves within 5 s. The clone is of the committed tree
 * (HEAD), as CI's is.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
/** What `make run` may use: a shell, make, npm and the machine's Node, and basic file tools. */
const TOOLS = [
  'bash',
  'sh',
  'env',
  'make',
  'find',
  'npm',
  'npx',
  'node',
  'touch',
  'mkdir',
  'dirname',
  'cat',
  'sed',
  'grep',
  'rm',
  'cp',
  'mv',
  'ls',
  'uname',
  'id',
  'head',
  'tail',
  'tr',
  'chmod',
  'ln',
  'readlink',
];
const FORBIDDEN = ['etcd', 'haproxy', 'helm', 'go'];
const FIRST_RUN_MS = 90_000;
const LATER_RUN_MS = 5_000;

/** Where `tool` is found on `path` (the test's own PATH when absent). */
function whichOrUndefined(tool: string, path = process.env.PATH): string | undefined {
  try {
    return (
      execFileSync('/bin/sh', ['-c', `command -v ${tool}`], {
        encoding: 'utf8',
        env: { PATH: path },
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** A bin directory with only `TOOLS`, as the PATH of the user's machine. */
function restrictedPath(dir: string): string {
  mkdirSync(dir);
  for (const tool of TOOLS) {
    const found = whichOrUndefined(tool);
    if (found !== undefined) symlinkSync(found, join(dir, tool));
  }
  return dir;
}

/** Runs `make run` until it prints its serving line; resolves with the time that took, then stops it. */
function makeRunUntilServing(options: {
  cwd: string;
  path: string;
  dataDir: string;
  timeoutMs: number;
}): Promise<number> {
  const startedAt = performance.now();
  const child = spawn('make', ['--no-print-directory', 'run', `ARGS=--secure-port 0 --data-dir ${options.dataDir}`], {
    cwd: options.cwd,
    env: { ...process.env, PATH: options.path },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`make run did not serve within ${options.timeoutMs} ms:\n${output}`));
    }, options.timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/capstan is serving https:\/\/\S+; try: kubectl --kubeconfig \S+ get namespaces/.test(output)) {
        const elapsed = performance.now() - startedAt;
        clearTimeout(timer);
        child.once('exit', () => resolve(elapsed));
        stop();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!/capstan is serving/.test(output)) reject(new Error(`make run exited with ${code}:\n${output}`));
    });
  });
}

describe('make run on a fresh clone', () => {
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'capstan-first-run-'));
    execFileSync('git', ['clone', '--quiet', ROOT, join(work, 'clone')]);
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it(
    'serves within 90 s without etcd, haproxy, helm or Go, and within 5 s the second time',
    async () => {
      const path = restrictedPath(join(work, 'bin'));
      for (const tool of FORBIDDEN) expect(whichOrUndefined(tool, path)).toBeUndefined();
      const clone = join(work, 'clone');
      const first = await makeRunUntilServing({
        cwd: clone,
        path,
        dataDir: join(work, 'data'),
        timeoutMs: FIRST_RUN_MS,
      });
      const second = await makeRunUntilServing({
        cwd: clone,
        path,
        dataDir: join(work, 'data'),
        timeoutMs: LATER_RUN_MS,
      });
      console.log(
        `make run on a fresh clone: first ${Math.round(first)} ms (npm install and build included), second ${Math.round(second)} ms`,
      );
      expect(first).toBeLessThan(FIRST_RUN_MS);
      expect(second).toBeLessThan(LATER_RUN_MS);
    },
    FIRST_RUN_MS + LATER_RUN_MS + 30_000,
  );
});
