/**
 * The aggregation proxy: a request under `/apis/<group>/<version>` whose APIService names a
 * Service goes, once the handler chain has authenticated and authorized it, to the extension
 * server behind that Service, over TLS with capstan's front-proxy client certificate and the
 * user (after impersonation) in request headers; the client's own credentials stay here. The
 * answer streams back as it comes, so watches and long lists pass through unbuffered, and a
 * protocol switch (exec, attach, port-forward of an extension's resources) joins the client's
 * connection to the extension server's once the server agrees to it. An
 * APIService that is not Available, or whose Service has no endpoint, is answered 503
 * `service unavailable`, and one whose server cannot be reached 503 `error trying to reach
 * service: <why>`, the reference's texts.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { KubeObject } from '../../storage/objects/types';
import type { StorageOf } from '../admission/lookup';
import { apiServiceName, isAvailable, serviceOf, specOf } from './apiservice';
import { dialErrorText, extensionTlsOptions, identityHeaders, type ProxyClientCertificate } from './extension-transport';
import { resolveServiceEndpoint } from './service-endpoint';

/** Headers that describe one connection, not the request (RFC 9110 §7.6.1), plus those this server consumed. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'authorization']);
const IDENTITY_PREFIXES = ['x-remote-', 'impersonate-'];

/** The APIService name a path's group-version would have (`/apis/<group>/<version>[/...]`). */
export function apiServiceNameOfPath(path: string): string | undefined {
  const match = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(path);
  return match ? apiServiceName({ group: match[1], version: match[2] }) : undefined;
}

/** The client's headers that go on, with the client's address appended to `X-Forwarded-For` as the reference appends it. */
export function forwardedHeaders(incoming: IncomingHttpHeaders, clientAddress: string | undefined): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || NOT_FORWARDED.has(name) || IDENTITY_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    headers[name] = value;
  }
  if (clientAddress) {
    const address = clientAddress.replace(/^::ffff:/, '');
    const prior = incoming['x-forwarded-for'];
    headers['x-forwarded-for'] = prior ? `${prior}, ${address}` : address;
  }
  return headers;
}

/** Whether the client asks to switch protocols (`Connection: Upgrade` with an `Upgrade` header). */
export function asksUpgrade(headers: IncomingHttpHeaders): boolean {
  return headers.upgrade !== undefined && /(^|,)\s*upgrade\s*(,|$)/i.test(String(headers.connection ?? ''));
}

/** The extension server agreed to switch: its 101 goes to the client as it came, then bytes flow both ways until either side ends. */
function joinConnections(client: Duplex, answer: IncomingMessage, upstream: Duplex, head: Buffer): void {
  const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}`];
  for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
  client.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (head.length > 0) client.write(head);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('close', close).on('error', close);
  upstream.on('close', close).on('error', close);
  upstream.pipe(client);
  client.pipe(upstream);
}

function unavailable(res: Response, message = 'service unavailable'): void {
  // The client went away first (and the extension server's request was ended for it).
  if (res.destroyed || res.writableEnded) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(503).setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(`${message}\n`);
}

/** Whether `request` is one the proxy takes (its group-version's APIService names a Service), for upgrades to reach it. */
export function isProxied(request: IncomingMessage, current: ReadonlyMap<string, KubeObject>): boolean {
  const name = apiServiceNameOfPath(new URL(request.url ?? '/', 'https://x').pathname);
  const apiService = name === undefined ? undefined : current.get(name);
  return apiService !== undefined && serviceOf(apiService) !== undefined;
}

export function aggregatorProxy(options: {
  /** The APIService informer's map. */
  readonly current: ReadonlyMap<string, KubeObject>;
  readonly storageOf: StorageOf;
  readonly clientCertificate: ProxyClientCertificate | undefined;
}): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const name = apiServiceNameOfPath(req.path);
    const apiService = name === undefined ? undefined : options.current.get(name);
    const service = apiService && serviceOf(apiService);
    if (apiService === undefined || service === undefined) {
      next();
      return;
    }
    if (!isAvailable(apiService)) {
      unavailable(res);
      return;
    }
    void resolveServiceEndpoint(service, options.storageOf).then(
      (resolution) => {
        if (!resolution.ok) {
          unavailable(res);
          return;
        }
        const upstream = httpsRequest(
          {
            ...extensionTlsOptions({ spec: specOf(apiService), endpoint: resolution.endpoint, clientCertificate: options.clientCertificate }),
            method: req.method,
            path: req.originalUrl,
            headers: {
              ...forwardedHeaders(req.headers, req.socket.remoteAddress),
              ...(asksUpgrade(req.headers) ? { Connection: 'Upgrade', Upgrade: req.headers.upgrade } : {}),
              ...identityHeaders(req.user),
            },
          },
          (answer) => {
            const headers: OutgoingHttpHeaders = {};
            for (const [header, value] of Object.entries(answer.headers)) {
              if (value !== undefined && !NOT_FORWARDED.has(header)) headers[header] = value;
            }
            res.writeHead(answer.statusCode ?? 502, headers);
            // Watches send events as they happen: each chunk goes out at once.
            res.flushHeaders();
            answer.pipe(res);
            answer.on('error', () => res.destroy());
          },
        );
        upstream.on('upgrade', (answer, socket, head) => joinConnections(req.socket, answer, socket, head));
        upstream.on('error', (error: NodeJS.ErrnoException) =>
          unavailable(res, `error trying to reach service: ${dialErrorText(error, resolution.endpoint.host, resolution.endpoint.port)}`),
        );
        // A client that goes away ends the extension server's request too (a watch, say).
        res.on('close', () => upstream.destroy());
        req.pipe(upstream);
      },
      () => unavailable(res),
    );
  };
}
