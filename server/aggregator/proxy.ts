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
 * service: <why>`, the reference's texts. A redirect the extension server answers is not
 * passed on unless `--aggregator-reject-forwarding-redirect=false`: the client gets a 502.
 */
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { KubeObject } from '../../api/objects';
import { auditSwitchedProtocols } from '../audit/record/request-audit';
import { apiServiceName, isAvailable, serviceOf } from '../../api/apiregistration';
import { asksUpgrade, dialErrorText, forwardedHeaders, joinConnections, streamAnswer } from '../proxy/forwarding';
import { connectToExtension, identityHeaders, type APIServiceAccess } from './extension-transport';

/** The APIService name a path's group-version would have (`/apis/<group>/<version>[/...]`). */
export function apiServiceNameOfPath(path: string): string | undefined {
  const match = /^\/apis\/([^/]+)\/([^/]+)(?:\/|$)/.exec(path);
  return match ? apiServiceName({ group: match[1], version: match[2] }) : undefined;
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

/** The reference's answer in place of an extension server's redirect. */
const REDIRECT_REFUSED = 'the backend attempted to redirect this request, which is not permitted';

/** A 3xx with a Location: what `--aggregator-reject-forwarding-redirect` keeps from the client. */
function isRedirect(answer: IncomingMessage): boolean {
  const code = answer.statusCode ?? 0;
  return code >= 300 && code <= 399 && (answer.headers.location ?? '') !== '';
}

export function aggregatorProxy(
  options: APIServiceAccess & {
    /** `--aggregator-reject-forwarding-redirect`. */
    readonly rejectRedirects: boolean;
  },
): RequestHandler {
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
    void connectToExtension(apiService, service, options).then(
      (connection) => {
        if (!connection.ok) {
          unavailable(res);
          return;
        }
        const upstream = httpsRequest(
          {
            ...connection.tls,
            method: req.method,
            path: req.originalUrl,
            headers: {
              ...forwardedHeaders(req.headers, req.socket.remoteAddress),
              ...(asksUpgrade(req.headers) ? { Connection: 'Upgrade', Upgrade: req.headers.upgrade } : {}),
              ...identityHeaders(req.user),
            },
          },
          (answer) => {
            if (options.rejectRedirects && isRedirect(answer)) {
              answer.resume();
              res.status(502).setHeader('Content-Type', 'text/plain; charset=utf-8');
              res.end(REDIRECT_REFUSED);
              return;
            }
            // Watches send events as they happen: each chunk goes out at once.
            streamAnswer(answer, res);
          },
        );
        upstream.on('upgrade', (answer, socket, head) => {
          auditSwitchedProtocols(req, answer.statusCode ?? 101);
          joinConnections(req.socket, answer, socket, head);
        });
        upstream.on('error', (error: NodeJS.ErrnoException) =>
          unavailable(
            res,
            `error trying to reach service: ${dialErrorText(error, connection.endpoint.host, connection.endpoint.port)}`,
          ),
        );
        // A client that goes away ends the extension server's request too (a watch, say).
        res.on('close', () => upstream.destroy());
        req.pipe(upstream);
      },
      () => unavailable(res),
    );
  };
}
