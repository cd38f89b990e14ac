/**
 * The health of the components `componentstatuses` reports, as the reference probes them: the
 * scheduler and the controller manager by their `/healthz` on this host's default secure ports
 * (10259, 10257; their serving certificates are not verified, as the reference does not), and
 * the store for `etcd-0`. Unreachable components are reported in Go's error words, as kubectl
 * users see them from a 1.34 server.
 */
import { get } from 'node:https';
import type { KubeObject } from '../../api/objects';
import { dialErrorText } from '../proxy/forwarding';

export interface ProbedComponent {
  readonly name: string;
  probe(): Promise<string>;
}

const PROBE_TIMEOUT_MS = 2_000;

/** Resolves with the body of a 200 answer; rejects with the reference's message otherwise. */
export function probeHealthz(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const request = get(url, { rejectUnauthorized: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(body)
          : reject(new Error(`unhealthy http status code: ${res.statusCode} (${body})`)),
      );
    });
    request.on('timeout', () =>
      request.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')),
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      reject(new Error(`Get ${JSON.stringify(url)}: ${dialErrorText(error, hostname, port)}`));
    });
  });
}

export function defaultComponents(storeHealthy: () => Promise<void>): ProbedComponent[] {
  return [
    { name: 'scheduler', probe: () => probeHealthz('https://127.0.0.1:10259/healthz') },
    { name: 'controller-manager', probe: () => probeHealthz('https://127.0.0.1:10257/healthz') },
    { name: 'etcd-0', probe: () => storeHealthy().then(() => 'ok') },
  ];
}

export async function componentStatus(component: ProbedComponent): Promise<KubeObject> {
  const condition = await component.probe().then(
    (message) => ({ type: 'Healthy', status: 'True', message }),
    (error: unknown) => ({
      type: 'Healthy',
      status: 'False',
      message: error instanceof Error ? error.message : String(error),
    }),
  );
  return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name: component.name }, conditions: [condition] };
}
