/**
 * One replica put together: its certificates, its control plane and its HTTPS server, started
 * in the order that works (storage and caches, then listening, then the bootstrap objects and
 * the controllers' campaign). `node dist/server/main.js` runs one; tests that need to reach
 * into a running replica (its registry, say) start one in their own process.
 */
import { isIP } from 'node:net';
import { createServer, type CapstanServer } from './app';
import type { ServerOptions } from './config/flags';
import { startControlPlane, type ControlPlane } from './control-plane';
import { ensurePki, type Pki } from './pki/pki';

export interface Replica {
  readonly pki: Pki;
  readonly plane: ControlPlane;
  readonly server: CapstanServer;
  readonly port: number;
  /** Where it listens: `https://<bind address>:<port>`. */
  readonly listenUrl: string;
  /** `https://<host>:<port>`, the host as clients reach it (see `clientHost`). */
  readonly url: string;
  /** Shuts the server down gracefully, then the control plane. */
  stop(): Promise<void>;
}

/** `options.dataDir` must exist. */
export async function startReplica(options: ServerOptions): Promise<Replica> {
  const [pki, plane] = await Promise.all([ensurePki(options), startControlPlane(options)]);
  const server = createServer({
    options,
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, clientCaPem: pki.clientCaPem },
    routes: (app) => plane.routes(app),
    health: plane.health,
    authorizer: plane.authorizer,
    metrics: plane.metrics,
  });
  const { port, url: listenUrl } = await server.listen();
  const host = clientHost(options.bindAddress);
  await plane.start({ advertiseAddress: host.replace(/^\[|\]$/g, ''), port });
  return {
    pki,
    plane,
    server,
    port,
    listenUrl,
    url: `https://${host}:${port}`,
    async stop() {
      await server.shutdown();
      await plane.stop();
    },
  };
}

/** Where clients reach this server: the bind address when it is one, else loopback. */
export function clientHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '::' || isIP(bindAddress) === 0) return '127.0.0.1';
  return isIP(bindAddress) === 6 ? `[${bindAddress}]` : bindAddress;
}
