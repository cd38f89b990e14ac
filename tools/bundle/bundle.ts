/**
 * `node dist/tools/bundle/bundle.js`: builds the server's one-file bundle, dist/capstan.js, from
 * the compiled modules (dist/server/main.js and all it imports). bin/capstan and `make run` start
 * it through dist/server/bundled-main.js.
 *
 * V8 keeps a script's whole source for the life of the process, so every byte bundled is heap an
 * idle server holds, whether that code ever runs or not. The packages below are the server's
 * dependencies that it loads only when a feature asks for them; bundled, their sources were
 * 1.8 MB of the 5.1 MB bundle, and of an idle server's heap. Left outside, each is read from
 * node_modules (through Node's compile cache) the first time it is needed, as the modules'
 * build loads it. A package that every start loads (jose, iconv-lite under Express's body
 * parsers) stays in: outside, it would cost a resolution and file reads at each start for no
 * memory saved.
 */
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';

const REPO = join(__dirname, '..', '..', '..');

/** Each with what first loads it. */
export const ON_DEMAND_PACKAGES: readonly string[] = [
  // CEL expressions: the first admission policy, CRD validation rule or authorizer expression.
  '@marcbachmann/cel-js',
  // RE2 regular expressions: CEL's matches() and CRD schema patterns.
  're2js',
  // Issuing certificates (a first start, CSR signing) and validating certificate requests; with
  // the Reflect polyfill it needs (server/x509-library.ts).
  '@peculiar/x509',
  'reflect-metadata',
  // HTML link rewriting of proxied pages (with its own dependencies: entities, dom*).
  'htmlparser2',
  // The secretbox encryption-at-rest provider.
  'tweetnacl',
  // --token-auth-file.
  'csv-parse',
  // CRD printer columns.
  'jsonpath-plus',
  // --audit-log-path.
  'rotating-file-stream',
  // The SPDY header blocks of exec, attach and port-forward streams (server/kubelet/): building
  // its inflate tables at load held 0.3 MiB of an idle server's heap.
  'fflate',
  // A JSON body that repeats a key (the keys' paths in order). Its UMD build requires its own
  // files through a factory's parameter, which esbuild cannot follow: bundled, it fails to load.
  'jsonc-parser',
];

/**
 * Folders of data files that a bundled package requires only when a request needs them, left in
 * node_modules like the packages above: iconv-lite's tables of the East Asian double-byte
 * encodings (0.45 MB of the bundle), which it requires on a body's first use of one.
 */
export const ON_DEMAND_FOLDERS: readonly string[] = ['iconv-lite/encodings/tables/'];

/** Resolves a relative require into an on-demand folder to that file's path under its package. */
const onDemandFolders: Plugin = {
  name: 'on-demand-folders',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.?\// }, (args) => {
      if (!args.importer.includes('/node_modules/')) {
        return undefined;
      }
      const importerInPackage = args.importer.slice(
        args.importer.lastIndexOf('/node_modules/') + '/node_modules/'.length,
      );
      const path = join(importerInPackage, '..', args.path);
      return ON_DEMAND_FOLDERS.some((folder) => path.startsWith(folder)) ? { path, external: true } : undefined;
    });
  },
};

async function bundle(): Promise<void> {
  await build({
    entryPoints: [join(REPO, 'dist', 'server', 'main.js')],
    outfile: join(REPO, 'dist', 'capstan.js'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    minifyWhitespace: true,
    external: [...ON_DEMAND_PACKAGES],
    plugins: [onDemandFolders],
    logLevel: 'warning',
  });
}

if (require.main === module) {
  bundle().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
