/**
 * A plain-HTTP Express app on a free loopback port with the request-info stage, a stand-in
 * for authentication (the user's groups come from the `x-test-groups` header), then the stages
 * under test and the routes the test gives. The TLS and client-certificate parts are the
 * server-core tests' business.
 */
import express from 'express';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { withRequestInfo } from '../../../server/http/with-request-info';
import '../../../server/request/request-context';

export interface StageServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startStageServer(options: {
  stagesBeforeUser?: RequestHandler[];
  stages: RequestHandler[];
  routes: (app: express.Application) => void;
}): Promise<StageServer> {
  const app = express();
  app.use(withRequestInfo(), ...(options.stagesBeforeUser ?? []), (req, _res, next) => {
    const groups = String(req.headers['x-test-groups'] ?? '')
      .split(',')
      .filter(Boolean);
    req.user = { name: 'tester', groups };
    next();
  });
  if (options.stages.length > 0) app.use(...options.stages);
  options.routes(app);
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface PlainReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export function plainRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<PlainReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false, timeout: 10_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(options.body);
  });
}
