/**
 * The aggregation proxy: a request under `/apis/<group>/<version>` whose APIService names a
 * Service goes, once the handler chain has authenticated and authorized it, to the extension
 * server behind that Service, over TLS with capstan's front-proxy client certificate and the
 * user (after impersonation) in request headers; the client's own credentials stay here. The
 * answer streams back as it comes, so watches and long lists pass through unbuffered. An
 * APIService that is not Available, or whose Service has no endpoint, is answered 503
 * `service unavailable`, the reference's text.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { KubeObject } from '../../storage/objects/types';
import type { StorageOf } from '../admission/lookup';
import { apiServiceName, isAvailable, serviceOf, specOf } from './apiservice';
import { extensionTlsOptions, identityHeaders, type ProxyClientCertificate } from './extension-transport';
import { resolveServiceEndpoint } from './service-endpoint';

/** Headers that describe one connection, not the request (RFC 9110 §7.6.1), plus those this server consumed. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'authorization']);
const IDENTITY_PREFIXES = ['x-remote-', 'impersonate-'];

/** The APIService name a path's group-version would have (`/apis/<group>/<version>[/...]`). */
export function apiServiceNameOfPath(path: string): string | undefined {
  const match = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(path);
  return match ? apiServiceName({ group: match[1], version: match[2] }) : undefined;
}

function forwardedHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || NOT_FORWARDED.has(name) || IDENTITY_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    headers[name] = value;
  }
  return headers;
}

function unavailable(res: Response, message = 'service unavailable'): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(503).setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(`${message}\n`);
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
            headers: { ...forwardedHeaders(req.headers), ...identityHeaders(req.user) },
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
        upstream.on('error', (error) => unavailable(res, `Error trying to reach service: '${error.message}'`));
        // A client that goes away ends the extension server's request too (a watch, say).
        res.on('close', () => upstream.destroy());
        req.pipe(upstream);
      },
      () => unavailable(res),
    );
  };
}
