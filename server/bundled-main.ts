/**
 * What the executables start (bin/capstan, `make run`): the one-file bundle of the server
 * (dist/capstan.js, made by `npm run bundle` from main.ts and all it imports), compiled with a
 * V8 code cache that holds what a start compiles.
 *
 * Most of a start's CPU is V8 compiling functions the first time they run: the modules'
 * bodies, then the whole write path for the ~200 objects a new cluster gets. Node's own compile
 * cache (module.enableCompileCache) is taken before the bundle runs, so it holds only the
 * bundle's top level. This cache is taken once the server has started (main.ts `afterStart`),
 * so it holds every function the start ran: about 70 ms less CPU by ready (envtest's flags on
 * etcd: 420 against 490 ms).
 *
 * The cache lives beside Node's, in the temporary directory, named by the Node version and the
 * bundle's checksum (V8 checks only the source's length): the first start of a new build or a
 * new Node takes it, the later ones use it. A cache that cannot be read or written costs
 * speed, never the start.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { constants, Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import type * as Main from './main';

const BUNDLE = join(__dirname, '..', 'capstan.js');

/** Where the cache of this bundle under this Node lives; undefined when caching is turned off. */
function codeCacheFile(source: string): string | undefined {
  // Node's switch for its own compile cache turns this one off too.
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const key = `${process.version}-${process.arch}-${source.length}-${crc32(source).toString(16)}`;
  return join(process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache'), 'capstan', `${key}.cache`);
}

function readCache(file: string | undefined): Buffer | undefined {
  if (file === undefined) return undefined;
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Written aside and renamed, so that servers starting side by side never read half a cache. */
function writeCache(file: string, data: Buffer): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, data);
    renameSync(partial, file);
  } catch {
    // A read-only or full temporary directory: the next start compiles again.
  }
}

const source = readFileSync(BUNDLE, 'utf8');
const cacheFile = codeCacheFile(source);
const cachedData = readCache(cacheFile);
// The bundle runs as Node runs a CommonJS file: the same five names, its own `module`.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: BUNDLE,
  cachedData,
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const bundle = { exports: {} as typeof Main };
(script.runInThisContext() as (...args: unknown[]) => void).call(
  bundle.exports,
  bundle.exports,
  createRequire(BUNDLE),
  bundle,
  BUNDLE,
  dirname(BUNDLE),
);
const takeCache = cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true);
bundle.exports.runServer(process.argv.slice(2), {
  afterStart: takeCache ? () => writeCache(cacheFile, script.createCachedData()) : undefined,
});
