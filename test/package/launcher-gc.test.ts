/**
 * bin/capstan runs V8's garbage collector on the main thread alone when the process may use
 * only one CPU (its helper threads would only take turns with the main thread there, stopping
 * the event loop for their turns), and leaves V8's default otherwise. Read from the Node
 * process's own command line, which the launcher (and taskset) replace themselves with.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const LAUNCHER = join(__dirname, '..', '..', 'bin', 'capstan');
const EXEC_TIMEOUT_MS = 10_000;

/** The arguments Node runs with when the launcher is started on `cpus` (a taskset list). */
async function nodeArguments(cpus: string): Promise<string[]> {
  const child = spawn('taskset', ['-c', cpus, LAUNCHER, '--help'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const deadline = Date.now() + EXEC_TIMEOUT_MS;
    for (;;) {
      let commandLine: string[] = [];
      try {
        commandLine = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      } catch {
        // Gone already: --help answered before the line was read.
      }
      // Node has taken the process over once its script is on the line.
      if (commandLine.some((argument) => /main\.js$/.test(argument))) return commandLine;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error('no Node command line seen');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

test('one CPU allowed: the collector runs on the main thread', async () => {
  expect(await nodeArguments('0')).toContain('--single-threaded-gc');
});

// The machines this runs on have two CPUs or more.
test('several CPUs allowed: V8 keeps its helper threads', async () => {
  expect(await nodeArguments(`0-${availableParallelism() - 1}`)).not.toContain('--single-threaded-gc');
});
