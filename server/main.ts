/**
 * `node dist/server/main.js [flags]`: parse flags, make or reuse the certificates in the
 * certificate directory (server/config/file-locations.ts), open the store and the control
 * plane, serve HTTPS, write the admin kubeconfig, and shut down gracefully on SIGTERM/SIGINT.
 * Failures an operator can fix end the process with one line and an exit code
 * (server/startup-failure.ts).
 */
import { existsSync, mkdirSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { fileLocationsOf } from './config/file-locations';
import {
  FlagError,
  parseFlags,
  personalityOf,
  serviceIPRangesOf,
  type Personality,
  type ServerOptions,
} from './config/flags';
import { insecureCipherSuites } from './config/tls-flags';
import { isHostPortPair, joinHostPort } from './net/host-port';
import { EXIT_BAD_CONFIGURATION, StartupFailure, startupStep } from './startup-failure';
import { releaseAfterLoads, releaseStartUpMemoryWhenQuiet } from './memory-release';
import { stopPretenuring } from './pretenuring';

/** The oldest Node.js major the server runs on (`engines` in package.json). */
const OLDEST_NODE_MAJOR = 22;

// Checked before anything else runs: an older Node fails later in obscure ways.
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < OLDEST_NODE_MAJOR) {
  process.stderr.write(
    `capstan: Node.js ${process.versions.node} is too old: it needs Node.js ${OLDEST_NODE_MAJOR} or newer (24 LTS recommended). ` +
      '`make run` and the npm scripts use the Node 24 that `npm install` brings (node_modules/.bin/node).\n',
  );
  process.exit(1);
}

// Start time is a feature: V8's on-disk code cache makes loading express and the rest of the
// server noticeably faster from the second start on. It must be on before they are loaded,
// hence the dynamic imports below.
nodeModule.enableCompileCache();

/** How long to wait for the watch caches to fill before giving start-up memory back anyway. */
const CACHES_READY_WAIT_MS = 120_000;
/** The pause after the caches are ready before start-up memory may go back (controllers' first pass); then a quiet moment is waited for. */
const SETTLE_AFTER_START_MS = 3_000;

/** Progress of a start, for the operator watching it (stderr keeps stdout to the summary lines). */
function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** What the code that starts the server may ask of it. */
export interface StartHooks {
  /**
   * Called once the server serves and its start-up writes are done, before anything changes
   * V8's flags (pretenuring, memory release): the loader takes its code cache here
   * (bundled-main.ts), so that the cache holds what a start compiles and V8 accepts it.
   */
  readonly afterStart?: () => void;
}

async function main(argv: readonly string[], hooks: StartHooks): Promise<void> {
  const personality = personalityOf(process.argv0);
  let options: ServerOptions;
  try {
    const parsed = parseFlags(argv, personality);
    if ('help' in parsed) {
      process.stdout.write(parsed.help);
      return;
    }
    if ('version' in parsed) {
      const { versionInfo, rawVersion } = await import('./discovery/version');
      process.stdout.write(
        parsed.version === 'raw' ? `${rawVersion(versionInfo())}\n` : `Kubernetes ${versionInfo().gitVersion}\n`,
      );
      return;
    }
    for (const warning of parsed.warnings) progress(warning);
    options = parsed.options;
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    throw new StartupFailure(`${error.message} (run with --help for the list of flags)`, EXIT_BAD_CONFIGURATION);
  }

  for (const name of insecureCipherSuites(options.tlsCipherSuites))
    progress(`Use of insecure cipher '${name}' detected.`);
  // Chosen before anything opens: a host with no usable address is a configuration to fix.
  const advertiseAddress = await startupStep('choosing the advertise address (--advertise-address)', () =>
    chooseAdvertiseAddress(options, personality),
  );
  const [
    { createServer },
    { servingPki },
    { writeAdminKubeconfig },
    { startControlPlane },
    { deprecatedApisOf },
    { setUpAuthentication },
    { prepareGeneratedServiceAccountKey },
  ] = await Promise.all([
    import('./app'),
    import('./pki/pki'),
    import('./kubeconfig'),
    import('./control-plane'),
    import('./metrics/deprecated-apis'),
    import('./authentication-setup'),
    import('./service-account-signing'),
  ]);
  const { setUpAudit } = await import('./audit-setup');
  const files = fileLocationsOf(options);
  const { dataDir } = files;
  if (dataDir !== undefined)
    await startupStep(`creating the data dir ${dataDir} (--data-dir)`, () => mkdirSync(dataDir, { recursive: true }));
  const certificateMade = (name: string) => existsSync(join(files.certDir, name));
  if (!options.tlsCertFile && !certificateMade('ca.crt') && !certificateMade('apiserver.crt'))
    progress(`generating certificates in ${files.certDir}`);
  const store =
    options.etcdServers.length > 0
      ? `etcd at ${options.etcdServers.join(',')} (--etcd-servers)`
      : `the embedded store in ${join(options.dataDir, 'capstan.db')}`;
  progress(`opening ${store}`);
  const [pki, plane] = await Promise.all([
    startupStep('reading the certificates', () =>
      servingPki({ ...options, alternateIPs: [serviceIPRangesOf(options).primary.firstAddress(), advertiseAddress] }),
    ),
    startupStep(`opening ${store}`, () => startControlPlane(options)),
    // A first start makes it on the thread pool while the store opens, rather than after.
    startupStep('making the service-account key', () => prepareGeneratedServiceAccountKey(options)),
  ]);
  const authentication = await startupStep('setting up authentication', () =>
    setUpAuthentication(options, {
      clientCaPem: pki.clientCaPem,
      registry: plane.registry,
      storageFor: plane.storageFor,
      metrics: plane.metrics.registry,
    }),
  );
  const audit = await startupStep('setting up audit', () => setUpAudit(options.audit, plane.metrics));
  // The reference's ExternalAddress: --external-hostname, else the advertise address, with the
  // secure port unless the flag names one.
  const externalHost = options.externalHostname || advertiseAddress;
  let externalAddress = '';
  const server = await startupStep('loading the serving certificate', () =>
    createServer({
      options,
      tls: {
        certPem: pki.serving.certPem,
        keyPem: pki.serving.keyPem,
        clientCaPem: pki.clientCaPem,
        extraClientCaPem: authentication.extraClientCaPem,
      },
      authenticators: authentication.authenticators,
      anonymous: authentication.anonymous,
      routes: (app) => {
        const authenticationPaths = authentication.routes(app, { externalAddress: () => externalAddress });
        const mounted = plane.routes(app, { externalAddress: () => externalAddress });
        return { ...mounted, listedPaths: () => [...authenticationPaths, ...mounted.listedPaths()] };
      },
      health: plane.health,
      authorizer: plane.authorizer,
      metrics: plane.metrics,
      deprecatedApi: deprecatedApisOf(plane.registry),
      audit,
      flowControl: plane.flowControl,
      upgrades: plane.upgrades,
    }),
  );
  const { port, url } = await startupStep('serving HTTPS', () => server.listen());
  externalAddress = isHostPortPair(externalHost) ? externalHost : joinHostPort(externalHost, port);
  console.log(
    `capstan listening on ${url} (store: ${options.etcdServers.length > 0 ? `etcd ${options.etcdServers.join(',')}` : 'embedded SQLite'})`,
  );
  await plane.start({
    advertiseAddress,
    port,
    // With an operator's serving certificate, the client CA is the best guess at what verifies it,
    // and the serving chain itself when there is none.
    controllers: authentication.controllers({
      caPem: pki.generated?.ca.certPem ?? pki.clientCaPem ?? pki.serving.certPem,
    }),
  });

  // Before the lines that tell a supervisor the server is up: a SIGTERM sent on reading them
  // must find its handler, not the default action that ends the process at once.
  const stop = (signal: string) => {
    console.log(`${signal} received: shutting down`);
    plane
      .beginShutdown()
      // Leaving the kubernetes Endpoints is a courtesy to clients: failing it must not cut the drain short.
      .catch((error: unknown) => console.error('leaving the kubernetes Endpoints failed:', error))
      .then(() => server.shutdown())
      .then(() => plane.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error('shutdown failed:', error);
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  if (pki.generated) {
    const kubeconfig = writeAdminKubeconfig({
      dir: files.kubeconfigDir,
      serverUrl: `https://${joinHostPort(kubeconfigHost(options.bindAddress), port)}`,
      caPem: pki.generated.ca.certPem,
      clientCertPem: pki.generated.admin.certPem,
      clientKeyPem: pki.generated.admin.keyPem,
    });
    console.log(`admin kubeconfig: ${resolve(kubeconfig)}`);
    // performance.now() counts from process start, so this includes loading the modules.
    console.log(`started in ${Math.round(performance.now())} ms`);
    console.log(`capstan is serving ${url}; try: kubectl --kubeconfig ${resolve(kubeconfig)} get namespaces`);
  } else {
    console.log(
      'admin kubeconfig: not written (the serving certificate is not of the generated CA: --tls-cert-file, or apiserver.crt in --cert-dir)',
    );
    console.log(`started in ${Math.round(performance.now())} ms`);
    console.log(`capstan is serving ${url}`);
  }

  hooks.afterStart?.();

  // Once the watch caches hold the stored objects and the controllers have had a moment for
  // their first pass, the memory start-up grew into and no longer needs goes back, at a quiet
  // moment; then each load's does, once it is over.
  void plane.caches
    .whenReady(CACHES_READY_WAIT_MS)
    .then(() => {
      // From here on most allocation lives as long as a request (see pretenuring.ts).
      stopPretenuring();
      return releaseStartUpMemoryWhenQuiet({ settleMs: SETTLE_AFTER_START_MS });
    })
    .then((pauseMsPerUsedMiB) => releaseAfterLoads({ pauseMsPerUsedMiB }));
}

/**
 * `--advertise-address`, or the reference's default; its family must be the primary service
 * range's, since the `kubernetes` Service is single-stack and its endpoints must be reachable
 * by its clients. A host without a usable address (a laptop offline) stops kube-apiserver, as
 * the reference; capstan, meant to start with no flags anywhere, advertises loopback instead.
 * capstan bound to a loopback address (its default) advertises that address: it is the only
 * one it answers on, where the reference's rule would name the host's, on which nothing listens.
 */
async function chooseAdvertiseAddress(options: ServerOptions, personality: Personality): Promise<string> {
  const { defaultAdvertiseAddress, readHostNetwork } = await import('./advertise-address');
  const { primary } = serviceIPRangesOf(options);
  const loopbackBound =
    isIP(options.bindAddress) !== 0 && (options.bindAddress.startsWith('127.') || options.bindAddress === '::1');
  let address: string;
  try {
    address =
      options.advertiseAddress ??
      (personality === 'capstan' && loopbackBound
        ? options.bindAddress
        : defaultAdvertiseAddress(options.bindAddress, readHostNetwork()));
  } catch (error) {
    if (personality === 'kube-apiserver') throw new FlagError((error as Error).message);
    address = primary.family === 'IPv4' ? '127.0.0.1' : '::1';
    progress(
      `advertising ${address} in the kubernetes endpoints: this host has no address to advertise (set --advertise-address)`,
    );
  }
  if ((primary.family === 'IPv4') !== (isIP(address) === 4)) {
    throw new FlagError(
      `service IP family ${JSON.stringify(primary.cidr)} must match public address family ${JSON.stringify(address)}`,
    );
  }
  return address;
}

/** Where the admin reaches this server: the bind address when it is one, else loopback. */
function kubeconfigHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::' || isIP(bindAddress) === 0) return '127.0.0.1';
  return bindAddress;
}

/** Runs the server with these flags; a failure to start ends the process with its exit code. */
export function runServer(argv: readonly string[], hooks: StartHooks = {}): void {
  main(argv, hooks).catch((error: unknown) => {
    if (error instanceof StartupFailure) {
      process.stderr.write(`capstan: ${error.message}\n`);
      process.exit(error.exitCode);
    }
    console.error('capstan failed to start:', error);
    process.exit(1);
  });
}

// Run as `node dist/server/main.js`; the bundle's loader calls runServer itself.
if (require.main === module) runServer(process.argv.slice(2));
