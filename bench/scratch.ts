/**
 * Temporary directories and child processes of a benchmark run, removed and killed when the
 * run ends, however it ends: normally through `remove`, or on exit (including Ctrl-C, which
 * run.ts turns into an exit) through the synchronous hook below.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const liveDirs = new Set<string>();
const liveProcesses = new Set<ChildProcess>();

process.on('exit', () => {
  for (const child of liveProcesses) child.kill('SIGKILL');
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true });
});

export interface ScratchDir {
  readonly path: string;
  remove(): Promise<void>;
}

/** A new empty directory; on a tmpfs (/dev/shm) when `inMemory` and there is one. */
export function scratchDir(options: { prefix: string; inMemory: boolean }): ScratchDir {
  const parent = options.inMemory && existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const path = mkdtempSync(join(parent, options.prefix));
  liveDirs.add(path);
  return {
    path,
    remove: async () => {
      await rm(path, { recursive: true, force: true });
      liveDirs.delete(path);
    },
  };
}

/** Kills `child` when this process exits, unless it has exited before. */
export function killOnExit(child: ChildProcess): void {
  liveProcesses.add(child);
  child.once('exit', () => liveProcesses.delete(child));
}
