/** The Go programs under test/go (client-go, the reference client), built with the Go toolchain when there is one. */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const GO_MODULE = join(__dirname, '..', 'go');

/** The `go` binary: /usr/local/go/bin first, then PATH; undefined when there is none. */
export function findGo(): string | undefined {
  for (const candidate of [
    '/usr/local/go/bin/go',
    ...(process.env.PATH ?? '').split(':').map((dir) => join(dir, 'go')),
  ]) {
    if (candidate !== 'go' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Builds the program in `pkg` (relative to test/go: `.` or `./remotecommand`) to `binary`. */
export function buildGoProgram(go: string, pkg: string, binary: string): void {
  execFileSync(go, ['build', '-o', binary, pkg], {
    cwd: GO_MODULE,
    stdio: 'pipe',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    timeout: 240_000,
  });
}
