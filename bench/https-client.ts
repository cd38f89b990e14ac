/**
 * The benchmark's HTTPS client: `node:https` with a keep-alive agent holding a client
 * certificate, so a run pays the TLS handshake once per socket, as a real client does, and
 * every request after that measures the server.
 */
import { Agent, request as httpsRequest } from 'node:https';

export interface ClientCredentials {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface HttpsCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query. */
  readonly path: string;
  readonly body?: Buffer;
  /** The body's media type; JSON when absent. */
  readonly contentType?: string;
}

export interface HttpsAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/** A client that trusts the server's CA and presents no certificate: `system:anonymous`. */
export interface AnonymousCredentials {
  readonly ca: Buffer;
}

export interface HttpsTarget {
  request(call: HttpsCall): Promise<HttpsAnswer>;
  /** Closes the agent's sockets. */
  close(): void;
}

export function httpsTarget(options: {
  url: string;
  credentials: ClientCredentials | AnonymousCredentials;
  maxSockets: number;
  /** A request that has had no answer for this long fails (socket idle time); absent: it waits as long as it takes. */
  requestTimeoutMs?: number;
}): HttpsTarget {
  const { hostname, port } = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets, ...options.credentials });
  const request = (call: HttpsCall): Promise<HttpsAnswer> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { Accept: 'application/json' };
      if (call.body) {
        headers['Content-Type'] = call.contentType ?? 'application/json';
        headers['Content-Length'] = call.body.length;
      }
      const outgoing = httpsRequest(
        { agent, hostname, port, method: call.method, path: call.path, headers },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks) }));
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', reject);
      const { requestTimeoutMs } = options;
      if (requestTimeoutMs !== undefined)
        outgoing.setTimeout(requestTimeoutMs, () =>
          outgoing.destroy(new Error(`${call.method} ${call.path}: no answer within ${requestTimeoutMs} ms`)),
        );
      outgoing.end(call.body);
    });
  return { request, close: () => agent.destroy() };
}

/** Creates the namespace `name` through `target`; anything but 201 is an error. */
export async function createNamespace(target: HttpsTarget, name: string): Promise<void> {
  const answer = await target.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
  });
  if (answer.status !== 201)
    throw new Error(`creating the namespace: ${answer.status} ${answer.body.toString('utf8')}`);
}
