/**
 * `node dist/server/main.js [flags]`: parse flags, make or reuse the certificates under the data
 * dir, open the store and the control plane, serve HTTPS, write the admin kubeconfig, and shut
 * down gracefully on SIGTERM/SIGINT.
 */
import { mkdirSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { FlagError, parseFlags, type ServerOptions } from './config/flags';

// Start time is a feature: V8's on-disk code cache makes loading express and the rest of the
// server noticeably faster from the second start on. It must be on before they are loaded,
// hence the dynamic imports below.
enableCompileCache();

async function main(argv: readonly string[]): Promise<void> {
  let options: ServerOptions;
  try {
    const parsed = parseFlags(argv);
    if ('help' in parsed) {
      process.stdout.write(parsed.help);
      return;
    }
    options = parsed.options;
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`Error: ${error.message}\nRun with --help for the list of flags.\n`);
    process.exit(1);
  }

  const [{ createServer }, { ensurePki }, { writeAdminKubeconfig }, { startControlPlane }, { setUpAuthentication }] = await Promise.all([
    import('./app'),
    import('./pki/pki'),
    import('./kubeconfig'),
    import('./control-plane'),
    import('./authn/setup'),
  ]);
  mkdirSync(options.dataDir, { recursive: true });
  const [pki, plane] = await Promise.all([ensurePki(options), startControlPlane(options)]);
  const authentication = setUpAuthentication(options, {
    clientCaPem: pki.clientCaPem,
    registry: plane.registry,
    storageFor: plane.storageFor,
    metrics: plane.metrics.registry,
  });
  let externalAddress = '';
  const server = createServer({
    options,
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem, extraClientCaPem: authentication.extraClientCaPem },
    authenticators: authentication.authenticators,
    anonymous: authentication.anonymous,
    routes: (app) => {
      authentication.routes(app, { externalAddress: () => externalAddress });
      plane.routes(app);
    },
    health: plane.health,
    authorizer: plane.authorizer,
    metrics: plane.metrics,
  });
  const { port, url } = await server.listen();
  externalAddress = `${kubeconfigHost(options.bindAddress)}:${port}`;
  console.log(`capstan listening on ${url} (store: ${options.etcdServers.length > 0 ? `etcd ${options.etcdServers.join(',')}` : 'embedded SQLite'})`);
  await plane.start({
    advertiseAddress: kubeconfigHost(options.bindAddress).replace(/^\[|\]$/g, ''),
    port,
    // With an operator's serving certificate, the client CA is the best guess at what verifies it.
    controllers: authentication.controllers({ caPem: pki.servingSignedByCa ? pki.ca.certPem : pki.clientCaPem }),
  });

  if (pki.servingSignedByCa) {
    const kubeconfig = writeAdminKubeconfig({
      dataDir: options.dataDir,
      serverUrl: `https://${kubeconfigHost(options.bindAddress)}:${port}`,
      caPem: pki.ca.certPem,
      clientCertPem: pki.admin.certPem,
      clientKeyPem: pki.admin.keyPem,
    });
    console.log(`admin kubeconfig: ${resolve(kubeconfig)}`);
  } else {
    console.log('admin kubeconfig: not written (the serving certificate comes from --tls-cert-file)');
  }
  // performance.now() counts from process start, so this includes loading the modules.
  console.log(`started in ${Math.round(performance.now())} ms`);

  const stop = (signal: string) => {
    console.log(`${signal} received: shutting down`);
    server
      .shutdown()
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
}

/** Where the admin reaches this server: the bind address when it is one, else loopback. */
function kubeconfigHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::' || isIP(bindAddress) === 0) return '127.0.0.1';
  return isIP(bindAddress) === 6 ? `[${bindAddress}]` : bindAddress;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error('capstan failed to start:', error);
  process.exit(1);
});
