/**
 * A whole capstan replica inside the test's own process: the real HTTPS server, chain and
 * control plane (embedded SQLite, watch caches, controllers), started as `main.js` starts one
 * (server/replica.ts), so that a test can reach into the control plane while clients (kubectl,
 * raw HTTPS) talk to it over the wire: add resource types to its registry, say. Tests that only
 * need the server from outside use test/helpers/server.ts (a separate process).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../server/config/flags';
import type { ControlPlane } from '../../server/control-plane';
import { writeAdminKubeconfig } from '../../server/kubeconfig';
import { startReplica } from '../../server/replica';
import { credentialsOf, httpsCall, runKubectl, type TestServer } from './server';

export interface InProcessServer extends Pick<TestServer, 'url' | 'dataDir' | 'kubeconfig' | 'credentials' | 'kubectl' | 'request'> {
  readonly plane: ControlPlane;
  stop(): Promise<void>;
}

export async function startInProcessServer(flags: readonly string[] = []): Promise<InProcessServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-inproc-'));
  const parsed = parseFlags(['--data-dir', dataDir, '--secure-port', '0', '--shutdown-delay-duration', '0s', ...flags]);
  if ('help' in parsed) throw new Error('unexpected --help');
  const replica = await startReplica(parsed.options);
  const { pki, url } = replica;
  const kubeconfig = writeAdminKubeconfig({ dataDir, serverUrl: url, caPem: pki.ca.certPem, clientCertPem: pki.admin.certPem, clientKeyPem: pki.admin.keyPem });
  const credentials = credentialsOf(kubeconfig);
  return {
    plane: replica.plane,
    url,
    dataDir,
    kubeconfig,
    credentials,
    request: (method, path, options = {}) => httpsCall(new URL(path, url), credentials, method, options),
    kubectl: (args, options) => runKubectl(kubeconfig, args, options),
    async stop() {
      await replica.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
