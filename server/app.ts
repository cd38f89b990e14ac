/**
 * Builds the HTTPS server: TLS with client certificates, the handler chain, health and version
 * endpoints, then whatever routes the caller mounts, and the shutdown sequence.
 *
 *   const server = createServer({ options, tls, routes: (app) => mountResourceApi(app), health: {...} });
 *   const { url } = await server.listen();
 *   process.once('SIGTERM', () => server.shutdown().then(() => process.exit(0)));
 */
import express from 'express';
import { ServerResponse, type IncomingMessage } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { union as authenticatorUnion } from './authn/union';
import type { Authenticator } from './authn/types';
import { x509Authenticator } from './authn/x509';
import type { Authorizer } from './authz/types';
import { serverAuthorizer } from './authz/server-authorizer';
import { flagzListing, type ServerOptions } from './config/flags';
import { featureEnabled } from './config/feature-enabled';
import { KUBERNETES_MAJOR, KUBERNETES_MINOR, versionHandler, versionInfo } from './discovery/version';
import { ROOT_PATHS, rootPathsHandler } from './discovery/root-paths';
import {
  logCheck,
  pingCheck,
  shutdownCheck,
  withGracePeriod,
  type HealthCheck,
  type PostStartHook,
} from './health/checks';
import { healthHandler, healthPaths } from './health/endpoints';
import { handlerChain } from './http/chain';
import { expressMessageClasses } from './http/express-messages';
import { notFoundHandler, statusErrorHandler } from './http/errors';
import { methodNotAllowed } from './status/catalogue';
import { InFlightRequests } from './http/in-flight';
import { goAnswerToParserError, refuseAsGo } from './http/protocol-refusals';
import { isTakenOver, readForeignMethodRequest } from './http/foreign-method';
import { keepFirstHeaderLines } from './http/go-header-values';
import { attachOpenWatches, OpenWatches } from './handlers/open-watches';
import { createApiserverMetrics, type ApiserverMetrics } from './metrics/apiserver-metrics';
import { createHealthcheckMetrics } from './metrics/healthcheck-metrics';
import { METRICS_PATH, metricsHandler, resetMetrics, SLI_METRICS_PATH } from './metrics/metrics-handler';
import { pprofHandler } from './debug/pprof';
import { FLAGZ_PATH, flagzHandler } from './debug/flagz';
import { STATUSZ_PATH, statuszHandler } from './debug/statusz';
import type { DeprecatedApi } from './metrics/with-request-metrics';
import type { RequestInfo } from './request/request-info';
import { setUpAudit, type Audit } from './audit-setup';
import { readSniCertificates, servingTlsSettings, sniSelection } from './pki/serving-tls';
import type { FlowControl } from './flowcontrol/flow-control';
import { restfulRouteRefusal, type RestfulRoute } from './codec/route-accept';
import { joinHostPort } from './net/host-port';

/** How long shutdown waits for watch clients to take the last bytes of their streams. */
const WATCH_END_TIMEOUT_MS = 5_000;

const VERSION_ROUTE: RestfulRoute = { consumes: ['application/json'], produces: ['application/json'] };

/**
 * The request line and headers may take 1 MiB, the reference's MaxHeaderBytes (a 70 KB label
 * selector or a 100 KB continue token fits); past it the client gets 431 with a body.
 */
export const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * A connection must finish its TLS handshake, and a request its headers, within this long: the
 * reference's ReadHeaderTimeout, whose read deadline covers the handshake too.
 */
export const HANDSHAKE_AND_HEADERS_TIMEOUT_MS = 32_000;

/**
 * How long a kept-alive connection may sit idle between requests: the reference's IdleTimeout,
 * which matches the 90 s Go clients keep idle connections. Node's default (5 s) closes them
 * under clients that still hold them, and a request sent in that moment is reset (the
 * controller manager's POSTs and DELETEs, which Go does not retry, failed so).
 */
export const IDLE_CONNECTION_TIMEOUT_MS = 90_000;

/** How long a connection refused by the HTTP parser reads on after its answer (Go's rstAvoidanceDelay). */
const RESET_AVOIDANCE_MS = 500;

export interface ServerTls {
  readonly certPem: string;
  readonly keyPem: string;
  /** PEM bundle that verifies client certificates; without one (and no proxy CA), none is asked for. */
  readonly clientCaPem?: string;
  /** Further CAs whose client certificates the handshake accepts (an authenticating proxy's); the methods tell them apart. */
  readonly extraClientCaPem?: string;
}

export interface HealthOptions {
  /** In `/livez`, `/readyz` and `/healthz`, after `ping` and `log`: e.g. `etcd`. */
  readonly checks?: readonly HealthCheck[];
  /** In `/healthz` and `/readyz`, not `/livez`, after `checks`: e.g. `kms-providers`. */
  readonly nonLivenessChecks?: readonly HealthCheck[];
  /** In `/readyz` only, before the post-start hooks: e.g. `informer-sync`. */
  readonly readinessChecks?: readonly HealthCheck[];
  /**
   * Everywhere, last but for `shutdown`; in `/livez` they pass during `--livez-grace-period`.
   * Mostly post-start hooks, with the checks the reference lists among them (`autoregister-completion`).
   */
  readonly postStartHooks?: readonly (PostStartHook | HealthCheck)[];
}

export interface MountedRoutes {
  /**
   * Whether an unknown path below a group under `/apis` is a NotFound Status (the reference's web
   * services of its built-in kinds answer so), not Go's plain 404.
   */
  readonly notFoundAsStatus: (name: string) => boolean;
  /** The paths these routes list in the server's index (`/`). */
  readonly listedPaths: () => readonly string[];
}

export interface CreateServerOptions {
  readonly options: ServerOptions;
  readonly tls: ServerTls;
  /**
   * Mounts the API's routes; they run after the whole chain (request info, authn, authz). What
   * it returns tells the not-found answer which groups are served.
   */
  readonly routes?: (app: express.Application) => MountedRoutes | void;
  readonly health?: HealthOptions;
  /** Every authentication method, in order (server/authentication-setup.ts); default: client certificates alone. */
  readonly authenticators?: readonly Authenticator[];
  /** Whether a request to this path without credentials is served as `system:anonymous`; default: `--anonymous-auth`. */
  readonly anonymous?: (path: string) => boolean;
  /** Decides every request (server/authz/server-authorizer.ts); default: `serverAuthorizer()`. */
  readonly authorizer?: Authorizer;
  /** The reference's `--request-timeout`; default: the options' (60 s). */
  readonly requestTimeoutMs?: number;
  /** Served at `/metrics`; default: a fresh registry. Pass one to record storage and compaction in it too. */
  readonly metrics?: ApiserverMetrics;
  /** Marks requested deprecated APIs in `apiserver_requested_deprecated_apis`. */
  readonly deprecatedApi?: (info: RequestInfo) => DeprecatedApi | undefined;
  /** Audit policy and backends (server/audit-setup.ts); default: from the options' `--audit-*` flags. */
  readonly audit?: Audit;
  /** API Priority and Fairness (server/flowcontrol/); absent: the plain in-flight limits. */
  readonly flowControl?: FlowControl;
  /**
   * Whether a request asking to switch protocols (`Upgrade`) goes to a route that completes the
   * switch itself on the socket (the aggregator's proxy); it still passes the whole chain.
   * Absent or false: it is served as a plain request.
   */
  readonly upgrades?: (request: IncomingMessage) => boolean;
}

export interface CapstanServer {
  readonly app: express.Application;
  readonly https: Server;
  /** Listens on `--bind-address:--secure-port` (port 0: any free port). */
  listen(): Promise<{ readonly port: number; readonly url: string }>;
  /**
   * Readiness fails at once; requests are still served for `--shutdown-delay-duration`; then
   * the listener closes, short requests in flight finish, and every open watch ends its
   * response properly, so clients see a normal end and reconnect elsewhere from their last
   * resource version. Connections still open after that (other long-running requests, clients
   * that do not read) are cut. Resolves when the server is closed. Calling it again returns
   * the same promise.
   */
  shutdown(): Promise<void>;
  readonly shuttingDown: boolean;
  readonly metrics: ApiserverMetrics;
}

export function createServer(create: CreateServerOptions): CapstanServer {
  const { options } = create;
  const startedAt = Date.now();
  let shuttingDown = false;
  let shutdownPromise: Promise<void> | undefined;
  const inFlight = new InFlightRequests();
  const metrics = create.metrics ?? createApiserverMetrics();
  const openWatches = new OpenWatches();
  const audit = create.audit ?? setUpAudit(options.audit, metrics);

  const requestTimeoutMs = create.requestTimeoutMs ?? options.requestTimeoutMs;
  // Node requires the headers to be due no later than the whole request.
  const headersTimeoutMs =
    requestTimeoutMs > 0
      ? Math.min(HANDSHAKE_AND_HEADERS_TIMEOUT_MS, requestTimeoutMs)
      : HANDSHAKE_AND_HEADERS_TIMEOUT_MS;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  attachOpenWatches(app, openWatches);

  app.use(
    handlerChain({
      authenticator: authenticatorUnion(
        create.authenticators ?? [
          x509Authenticator({
            uidFromSubject: featureEnabled(options.featureGates, 'AllowParsingUserUIDFromCertAuth'),
          }),
        ],
      ),
      anonymous: create.anonymous ?? (() => options.anonymousAuth),
      authorizer: create.authorizer ?? serverAuthorizer(),
      inFlight,
      requestTimeoutMs,
      metrics,
      maxRequestsInflight: options.maxRequestsInflight,
      maxMutatingRequestsInflight: options.maxMutatingRequestsInflight,
      deprecatedApi: create.deprecatedApi,
      audit: audit && { policy: audit.policy, sink: audit.output.sink },
      flowControl: create.flowControl,
      logVerbosity: options.logVerbosity,
      strictTransportSecurityDirectives: options.strictTransportSecurityDirectives,
      corsAllowedOrigins: options.corsAllowedOrigins,
      goawayChance: options.goawayChance,
    }),
  );

  const checks = [pingCheck, logCheck, ...(create.health?.checks ?? [])];
  const hooks = create.health?.postStartHooks ?? [];
  const nonLiveness = create.health?.nonLivenessChecks ?? [];
  const graceEndsAt = startedAt + options.livezGracePeriodMs;
  const health = {
    livez: [...checks, ...hooks.map((hook) => withGracePeriod(hook, graceEndsAt))],
    readyz: [
      ...checks,
      ...nonLiveness,
      ...(create.health?.readinessChecks ?? []),
      ...hooks,
      shutdownCheck(() => shuttingDown),
    ],
    healthz: [...checks, ...nonLiveness, ...hooks],
  };
  const healthcheckMetrics = createHealthcheckMetrics();
  app.use(healthHandler(health, healthcheckMetrics.observe));
  // A go-restful route in the reference: every other method (HEAD too) is refused, and it
  // consumes and produces JSON alone.
  const version = versionHandler();
  app.route('/version').all((req, res, next) => {
    if (req.method !== 'GET') return next(methodNotAllowed());
    const refusal = restfulRouteRefusal(
      { method: req.method, contentType: req.headers['content-type'], accept: req.headers.accept },
      VERSION_ROUTE,
    );
    return refusal ? next(refusal) : version(req, res, next);
  });
  // The reference installs both with reset when profiling is on.
  app.use(
    metricsHandler({
      path: METRICS_PATH,
      registry: metrics.registry,
      scrape: () => metrics.scrape(),
      resettable: options.profiling,
      reset: () => {
        metrics.collect();
        resetMetrics(metrics.registry);
      },
    }),
  );
  app.use(
    metricsHandler({
      path: SLI_METRICS_PATH,
      registry: healthcheckMetrics.registry,
      resettable: options.profiling,
      reset: () => healthcheckMetrics.reset(),
    }),
  );
  if (options.profiling) app.use(pprofHandler());
  const mounted = create.routes?.(app);
  const flagz = featureEnabled(options.featureGates, 'ComponentFlagz');
  const statusz = featureEnabled(options.featureGates, 'ComponentStatusz');
  const listedPaths = () => [
    '/version',
    METRICS_PATH,
    SLI_METRICS_PATH,
    ...(flagz ? [FLAGZ_PATH] : []),
    ...(statusz ? [STATUSZ_PATH] : []),
    ...healthPaths(health),
    ...(mounted?.listedPaths() ?? []),
  ];
  if (flagz) app.use(flagzHandler(options.personality, flagzListing(options)));
  if (statusz) {
    const build = versionInfo();
    app.use(
      statuszHandler('apiserver', {
        startedAt: performance.timeOrigin,
        runtimeVersion: build.goVersion,
        binaryVersion: build.gitVersion.replace(/^v/, ''),
        emulationVersion: `${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}`,
        listedPaths,
      }),
    );
  }
  app.route(ROOT_PATHS).all(rootPathsHandler(listedPaths));
  app.use(notFoundHandler(mounted?.notFoundAsStatus));
  app.use(statusErrorHandler());

  const clientCas = [create.tls.clientCaPem, create.tls.extraClientCaPem].filter(
    (pem): pem is string => pem !== undefined,
  );
  const secureContext = {
    ca: clientCas.length > 0 ? clientCas : undefined,
    ...servingTlsSettings(options),
  };
  const sni = sniSelection(readSniCertificates(options.tlsSniCertKeys), secureContext);
  const https = createHttpsServer(
    {
      ...expressMessageClasses(app),
      cert: create.tls.certPem,
      key: create.tls.keyPem,
      ...secureContext,
      SNICallback: sni?.callback,
      // Without a CA of its own, Node would verify client certificates against the public roots.
      requestCert: clientCas.length > 0,
      // Requests without a valid certificate still arrive: they may carry a token or be anonymous.
      rejectUnauthorized: false,
      maxHeaderSize: MAX_HEADER_BYTES,
      // Go's answer to a request without one is refuseAsGo's: Node's would have no body.
      requireHostHeader: false,
      handshakeTimeout: headersTimeoutMs,
      headersTimeout: headersTimeoutMs,
      // `--request-timeout` bounds reading the whole request, body included (a body sent a byte
      // at a time is cut off); long-running requests have read theirs long before it passes.
      requestTimeout: requestTimeoutMs,
      // How often those deadlines are checked (Node's default, 30 s, would let them run over).
      connectionsCheckingInterval: 1_000,
      shouldUpgradeCallback: (request) => create.upgrades?.(request) ?? false,
      keepAliveTimeout: IDLE_CONNECTION_TIMEOUT_MS,
      // A request without Content-Length or Transfer-Encoding has no body: it arrives already
      // ended, without the readable stream's events (data, end, close) that Node would run for
      // nothing, about 5% of a GET's CPU in a profile. `readBody` answers such a request at
      // once, and `pipe` ends its destination as for any ended stream.
      optimizeEmptyRequests: true,
    },
    (request, response) => {
      if (refuseAsGo(request, response)) return;
      keepFirstHeaderLines(request);
      app(request, response);
    },
  );
  sni?.attach(https);
  // The chain answers an upgrade request on its raw socket like any other (a 403, say); a
  // route that switches protocols writes its 101 there itself. Answered otherwise, the
  // connection ends with the answer: it has left HTTP's keep-alive handling.
  // CONNECT is routed like any other method, as Go's router does (a 405 on an API path, a 404
  // on a host and port), rather than left to Node, which drops it unanswered.
  const serveOnSocket = (request: IncomingMessage, socket: Duplex, close: () => void) => {
    const response = new ServerResponse(request);
    // Says `Connection: close`, so that no client sends another request on it.
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0]);
    response.once('finish', close);
    if (refuseAsGo(request, response)) return;
    keepFirstHeaderLines(request);
    app(request, response);
  };
  const answerOnSocket = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (head.length > 0) socket.unshift(head);
    serveOnSocket(request, socket, () => socket.end());
  };
  https.on('upgrade', answerOnSocket);
  https.on('connect', answerOnSocket);
  // As Go's server closes a connection it answered and reads no more from: the answer, a
  // half-close, and what more the client sends read and dropped for a moment before the socket
  // goes. Destroyed at once with the client's bytes unread, the connection ended in a reset that
  // could discard the answer before the client read it (seen for a 1 MiB header). The socket is
  // always destroyed: ended alone, one whose TLS handshake never finished would wait forever.
  const closeAfterAnswer = (socket: Duplex, answer?: string) => {
    socket.on('data', () => undefined);
    socket.end(answer);
    setTimeout(() => socket.destroy(), RESET_AVOIDANCE_MS).unref();
  };
  const foreignMethodLimits = { maxHeaderBytes: MAX_HEADER_BYTES, headersTimeoutMs };
  // Go's answers to what Node's parser refuses (a 431 for oversized headers, a 505 or 400 for a
  // protocol version, a 501 for a transfer coding, else a 400), Node's to a request timeout; a
  // method Node does not know is read and served here (server/http/foreign-method.ts).
  https.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer; bytesParsed?: number }, socket) => {
    // Node's parser reports each chunk that arrives after its first error again.
    if (isTakenOver(socket)) return;
    if (error.code === 'HPE_INVALID_METHOD' && error.rawPacket !== undefined && socket.writable) {
      readForeignMethodRequest(
        socket,
        { rawPacket: error.rawPacket, bytesParsed: error.bytesParsed },
        foreignMethodLimits,
        {
          serve: (request) => serveOnSocket(request, socket, () => closeAfterAnswer(socket)),
          refuse: (answer) => closeAfterAnswer(socket, answer),
        },
      );
      return;
    }
    const answer =
      error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'
        : goAnswerToParserError(error);
    if (answer === undefined || !socket.writable) {
      socket.destroy();
      return;
    }
    closeAfterAnswer(socket, answer);
  });

  async function shutdown(): Promise<void> {
    shuttingDown = true;
    if (options.shutdownDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, options.shutdownDelayMs));
    const closed = new Promise<void>((resolve) => https.close(() => resolve()));
    https.closeIdleConnections();
    await Promise.all([inFlight.drained(), openWatches.endAll({ timeoutMs: WATCH_END_TIMEOUT_MS })]);
    https.closeAllConnections();
    await closed;
    // The events of the last requests reach the backends before the process exits.
    await audit?.output.stop();
  }

  return {
    app,
    https,
    listen: () =>
      new Promise((resolve, reject) => {
        https.once('error', reject);
        // SO_REUSEPORT (--permit-port-sharing): processes that all set it share the port, the kernel spreading connections.
        https.listen(
          { port: options.securePort, host: options.bindAddress, reusePort: options.permitPortSharing },
          () => {
            https.off('error', reject);
            const { port } = https.address() as AddressInfo;
            resolve({ port, url: `https://${joinHostPort(options.bindAddress, port)}` });
          },
        );
      }),
    shutdown: () => (shutdownPromise ??= shutdown()),
    get shuttingDown() {
      return shuttingDown;
    },
    metrics,
  };
}
