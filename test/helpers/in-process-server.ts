/**
 * A whole capstan replica inside the test's own process: the real HTTPS server, chain and
 * control plane (embedded SQLite, watch caches, controllers), put together as server/main.ts
 * does, so that a test can reach into the control plane while clients (kubectl, raw HTTPS) talk
 * to it over the wire: add resource types to its registry, say. Tests that only need the
 * server from outside use test/helpers/server.ts (a separate process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from '../../server/app';
import { parseFlags } from '../../server/config/flags';
import { startControlPlane, type ControlPlane } from '../../server/control-plane';
import { writeAdminKubeconfig } from '../../server/kubeconfig';
import { generatedPki } from '../../server/pki/pki';
import { credentialsOf, httpsCall, runKubectl, type TestServer } from './server';

export interface InProcessServer extends Pick<
  TestServer,
  'url' | 'dataDir' | 'kubeconfig' | 'credentials' | 'kubectl' | 'request'
> {
  readonly plane: ControlPlane;
  stop(): Promise<void>;
}

export async function startInProcessServer(flags: readonly string[] = []): Promise<InProcessServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-inproc-'));
  const parsed = parseFlags(['--data-dir', dataDir, '--secure-port', '0', '--shutdown-delay-duration', '0s', ...flags]);
  if (!('options' in parsed)) throw new Error('unexpected --help or --version');
  const { options } = parsed;
  // Both end before a failed start throws: neither works on behind a test that expected the failure.
  const [pkiResult, planeResult] = await Promise.allSettled([generatedPki(options), startControlPlane(options)]);
  if (pkiResult.status === 'rejected' || planeResult.status === 'rejected') {
    if (planeResult.status === 'fulfilled') await planeResult.value.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw pkiResult.status === 'rejected' ? pkiResult.reason : (planeResult as PromiseRejectedResult).reason;
  }
  const [pki, plane] = [pkiResult.value, planeResult.value];
  const server = createServer({
    options,
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
    routes: (app) => plane.routes(app),
    health: plane.health,
    authorizer: plane.authorizer,
    metrics: plane.metrics,
    flowControl: plane.flowControl,
    upgrades: plane.upgrades,
  });
  const { port } = await server.listen();
  await plane.start({ advertiseAddress: '127.0.0.1', port });
  const url = `https://127.0.0.1:${port}`;
  const kubeconfig = writeAdminKubeconfig({
    dir: dataDir,
    serverUrl: url,
    caPem: pki.ca.certPem,
    clientCertPem: pki.admin.certPem,
    clientKeyPem: pki.admin.keyPem,
  });
  const credentials = credentialsOf(kubeconfig);
  return {
    plane,
    url,
    dataDir,
    kubeconfig,
    credentials,
    request: (method, path, requestOptions = {}) => httpsCall(new URL(path, url), credentials, method, requestOptions),
    kubectl: (args, kubectlOptions) => runKubectl(kubeconfig, args, kubectlOptions),
    async stop() {
      await server.shutdown();
      await plane.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A replica as a suite's tests see it: the suite starts and stops it. */
export type SuiteServer = Omit<InProcessServer, 'stop'>;

/**
 * The replica a suite's tests share: this registers jest's `beforeAll`, which starts it with
 * these flags (within `startTimeoutMs`, else jest's own test timeout), and `afterAll`, which
 * stops it, so call it where a suite or a `describe` begins. What it returns stands for the
 * replica from the first test on.
 */
export function inProcessServerForSuite(flags: readonly string[] = [], startTimeoutMs?: number): SuiteServer {
  let started: InProcessServer | undefined;
  beforeAll(async () => {
    started = await startInProcessServer(flags);
  }, startTimeoutMs);
  afterAll(async () => {
    await started?.stop();
  });
  const server = (): InProcessServer => {
    if (started === undefined) throw new Error("the suite's server is used before its beforeAll started it");
    return started;
  };
  return {
    get plane() {
      return server().plane;
    },
    get url() {
      return server().url;
    },
    get dataDir() {
      return server().dataDir;
    },
    get kubeconfig() {
      return server().kubeconfig;
    },
    get credentials() {
      return server().credentials;
    },
    request: (...args) => server().request(...args),
    kubectl: (...args) => server().kubectl(...args),
  };
}

/** Creates empty ConfigMaps of these names in `default`, as the admin, each expected to be created. */
export async function createConfigMaps(server: Pick<TestServer, 'request'>, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
  }
}
