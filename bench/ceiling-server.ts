/**
 * The ceiling of the API benchmark: a plain `node:https` server, in its own process as capstan
 * is, with the same TLS (capstan's serving certificate and key, client certificates requested
 * and checked against the same CA), answering the same paths with the same bytes capstan
 * answered (a pod, the 10,000-pod list, a created and an updated pod), and doing nothing else.
 * What capstan reaches of its figures is what its own work costs on top of Node's HTTPS.
 *
 * Given a watch event's bytes, it also holds every `?watch=` GET open as a chunked response and
 * writes the event to each of them on every PATCH, one framed chunk in one socket write per
 * watcher (the cheapest way Node offers, and capstan's watch writer's way): the floor of a
 * watch fan-out in which every event is a write of its own.
 *
 * This file is both the parent's launcher and the child's entry point.
 */
import { fork } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import type { ServerPki } from './capstan-process';
import { killOnExit, scratchDir } from './scratch';

/** Response bodies as capstan sent them. */
export interface CeilingBodies {
  /** GET of one pod. */
  readonly get: Buffer;
  /** GET of the collection (the 10,000-pod list). */
  readonly list: Buffer;
  /** POST (201). */
  readonly create: Buffer;
  /** PUT and PATCH (200). */
  readonly update: Buffer;
  /** One watch event (a JSON line), written to every open watch on each PATCH; absent: no watches. */
  readonly event?: Buffer;
}

export interface CeilingServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 15_000;
const CRLF = Buffer.from('\r\n');
const FILES = {
  cert: 'serving.crt',
  key: 'serving.key',
  ca: 'ca.crt',
  get: 'get.json',
  list: 'list.json',
  create: 'create.json',
  update: 'update.json',
  event: 'event.json',
} as const;

export async function startCeilingServer(options: { pki: ServerPki; bodies: CeilingBodies }): Promise<CeilingServer> {
  const dir = scratchDir({ prefix: 'capstan-bench-ceiling-', inMemory: true });
  const { pki, bodies } = options;
  writeFileSync(join(dir.path, FILES.cert), pki.servingCertPem);
  writeFileSync(join(dir.path, FILES.key), pki.servingKeyPem);
  writeFileSync(join(dir.path, FILES.ca), pki.client.ca);
  for (const name of ['get', 'list', 'create', 'update'] as const)
    writeFileSync(join(dir.path, FILES[name]), bodies[name]);
  if (bodies.event) writeFileSync(join(dir.path, FILES.event), bodies.event);

  const child = fork(__filename, [dir.path], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  killOnExit(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    await dir.remove();
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the ceiling server did not listen within ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      child.once('message', (message: { port: number }) => {
        clearTimeout(timer);
        resolve(message.port);
      });
      void exited.then(() => reject(new Error('the ceiling server exited before it listened')));
    });
    return { url: `https://127.0.0.1:${port}`, pid: child.pid ?? 0, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function serve(dir: string): void {
  const read = (name: keyof typeof FILES) => readFileSync(join(dir, FILES[name]));
  const bodies: CeilingBodies = {
    get: read('get'),
    list: read('list'),
    create: read('create'),
    update: read('update'),
    event: existsSync(join(dir, FILES.event)) ? read('event') : undefined,
  };
  const eventChunk =
    bodies.event && Buffer.concat([Buffer.from(`${bodies.event.length.toString(16)}\r\n`), bodies.event, CRLF]);
  const watches = new Set<Socket>();
  // As capstan's server (server/app.ts): certificates requested, unauthenticated requests let
  // through, a request without a body handed over already ended.
  const tls: ServerOptions = {
    cert: read('cert'),
    key: read('key'),
    ca: read('ca'),
    requestCert: true,
    rejectUnauthorized: false,
    optimizeEmptyRequests: true,
  };
  const server = createServer(tls, (request, response) => {
    const [pathname, query = ''] = (request.url ?? '/').split('?');
    if (eventChunk && request.method === 'GET' && /(^|&)watch=/.test(query)) {
      response.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
      response.flushHeaders();
      const socket = response.socket as Socket;
      watches.add(socket);
      socket.once('close', () => watches.delete(socket));
      return;
    }
    const [status, body] =
      request.method === 'POST'
        ? [201, bodies.create]
        : request.method === 'PUT' || request.method === 'PATCH'
          ? [200, bodies.update]
          : pathname.endsWith('/pods')
            ? [200, bodies.list]
            : [200, bodies.get];
    const answer = (): void => {
      if (eventChunk && request.method === 'PATCH') for (const socket of watches) socket.write(eventChunk);
      response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length });
      response.end(body);
    };
    // The request body is read whole before answering, as capstan must; one without a body has
    // already ended.
    if (request.readableEnded) {
      answer();
      return;
    }
    request.resume();
    request.on('end', answer);
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  // Ends with its parent.
  process.on('disconnect', () => process.exit(0));
}

if (require.main === module) serve(process.argv[2]);
