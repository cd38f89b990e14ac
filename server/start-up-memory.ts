/**
 * Gives back the memory that start-up needed and an idle server does not.
 *
 * Start-up allocates fast (modules, schema tables, bootstrap objects, the watch caches' first
 * lists), so V8 grows the young generation to its maximum (32 MiB on 64-bit) and keeps those
 * pages committed afterwards: about a third of an idle server's RSS. A memory-reducing full
 * collection (V8's "last resort" collection, what a low-memory notification runs) shrinks the
 * young generation back to its minimum, compacts the old one and returns the freed pages to the
 * system. The young generation grows again as soon as a load allocates as fast as start-up did,
 * so throughput under load is unchanged; a fixed `--max-semi-space-size` would not give that.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's default number of collections a function's bytecode survives unused before it is flushed. */
const DEFAULT_BYTECODE_OLD_AGE = 6;

/** The options V8's `gc` extension takes (src/extensions/gc-extension.cc). */
interface GcOptions {
  readonly type: 'major' | 'minor';
  readonly execution: 'sync' | 'async';
  readonly flavor: 'regular' | 'last-resort';
}

/**
 * Runs one memory-reducing full collection, synchronously (tens to hundreds of milliseconds:
 * run it once, when the server has settled, not on a request's path).
 */
export function releaseStartUpMemory(): void {
  // V8 offers no other way in from JavaScript: `gc` is installed on contexts made while
  // --expose-gc is set. The flag is reset at once so no other context gets it.
  setFlagsFromString('--expose-gc');
  let gc: (options: GcOptions) => void;
  try {
    gc = runInNewContext('gc') as typeof gc;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  // Bytecode and baseline code of functions not run since the previous collection (start-up's
  // own: module bodies, bootstrap) are flushed by this one; they compile again if ever called.
  setFlagsFromString('--bytecode-old-age=1');
  setFlagsFromString('--flush-baseline-code');
  try {
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } finally {
    setFlagsFromString(`--bytecode-old-age=${DEFAULT_BYTECODE_OLD_AGE}`);
    setFlagsFromString('--no-flush-baseline-code');
  }
}
