/**
 * The subresources that connect through a node to a container or a pod, as the reference serves
 * them: `pods/log` streamed from the kubelet's `/containerLogs/...`; `pods/proxy`,
 * `nodes/proxy` and `services/proxy`, any method, to the pod's address, the node's kubelet (or
 * another port of the node) and a ready endpoint of the Service, with the path after `proxy`,
 * the query and the body passed on and the answer streamed back. A connection is admitted first
 * (CONNECT, with its options object: webhooks may refuse it), then what it names is looked up:
 * a pod without a node (log: 204 No Content; exec, attach, portforward: 400), a node missing or
 * without an address, an address the reference will not proxy to (loopback, link-local) are
 * its answers. Everything streams through pipes: a client that stops reading holds the backend
 * back, never the server's memory.
 * exec, attach and portforward pass the client's protocol switch (SPDY, or WebSocket with the
 * kubelet's own protocols) to the kubelet and join the connections; WebSocket
 * `v5.channel.k8s.io` (exec, attach) is translated to SPDY toward the kubelet
 * (stream-translator.ts) and port-forward's SPDY-in-WebSocket tunneled (stream-tunnel.ts), as
 * the reference does with their feature gates on.
 */
import { goQuote } from '../../api/go-quote';
import { lookup } from 'node:dns/promises';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import type { Request } from 'express';
import type { KubeObject } from '../../api/objects';
import { auditSwitchedProtocols } from '../audit/record/request-audit';
import { writeOriginOf } from '../handlers/write-origin';
import type { RequestInfo } from '../request/request-info';
import type { HandlerScope, ResourceHandler } from '../handlers/scope';
import type { KubeletClient } from '../kubelet/kubelet-client';
import {
  answerRewritten,
  asksUpgrade,
  forwardedHeaders,
  joinConnections,
  readAtMost,
  streamAnswer,
} from '../proxy/forwarding';
import { isHtml, rewriteHtmlBody } from '../proxy/html-links';
import { openUpstream, type UpstreamAnswer, type UpstreamInit } from '../proxy/upstream';
import { admitConnect } from '../registry/store/admission';
import { parseBool, parseInteger, queryOf, type QueryParameters } from '../request/query';
import { badRequest, internalError, notFound, serviceUnavailable, unclassified } from '../status/catalogue';
import { genericServerResponse } from '../status/server-response';
import { StatusError } from '../status/status-error';
import type { Verb } from '../registry/types';
import { featureEnabled } from '../config/feature-enabled';
import { offersStreamClose, translateToSpdy } from './stream-translator';
import { isWebSocketRequest, streamOverWebSocket } from './log-websocket';
import { tunneledProtocols, tunnelToKubelet, WEBSOCKET_HEADERS } from './stream-tunnel';
import { kubeletLogQuery, parsePodLogOptions, validatePodLogOptions } from './pod-log-options';
import { joinHostPort } from '../net/host-port';

type Factory = (scope: HandlerScope) => ResourceHandler;

interface NamedContainer {
  readonly name?: string;
}

function containerNames(pod: KubeObject, field: string): string[] {
  const list = (pod.spec as Record<string, NamedContainer[] | undefined> | undefined)?.[field] ?? [];
  return list.map((container) => container.name ?? '');
}

/**
 * The container a log, exec or attach names, or the pod's only one; the reference's 400s
 * otherwise (the choice lists init, regular and ephemeral containers, in that order).
 */
function containerOf(pod: KubeObject, requested: string): string {
  const name = pod.metadata.name ?? '';
  const all = ['initContainers', 'containers', 'ephemeralContainers'].flatMap((field) => containerNames(pod, field));
  if (requested === '') {
    const containers = containerNames(pod, 'containers');
    if (containers.length === 1) return containers[0];
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.join(' ')}]`);
  }
  if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/** Go's net.IP.IsGlobalUnicast: the reference proxies to no loopback, link-local, multicast or unspecified address. */
function globalUnicast(address: string): boolean {
  const version = isIP(address);
  if (version === 4) {
    const [a, b] = address.split('.').map(Number);
    return !(a === 127 || a === 0 || (a === 169 && b === 254) || a >= 224);
  }
  if (version === 6) {
    const lower = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return globalUnicast(mapped[1]);
    return !(lower === '::1' || lower === '::' || /^fe[89ab]/.test(lower) || lower.startsWith('ff'));
  }
  return false;
}

/** The reference's isProxyableHostname: every address the name resolves to must be global unicast. */
async function checkProxyableHost(host: string): Promise<void> {
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    throw badRequest(`lookup ${host}: no such host`);
  }
  if (addresses.length === 0) throw badRequest('no addresses for hostname');
  if (!addresses.every(({ address }) => globalUnicast(address))) throw badRequest('address not allowed');
}

/** `name`, `name:port` or `scheme:name:port` (scheme empty, http or https), the reference's SplitSchemeNamePort. */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  const [scheme, name, port] =
    parts.length === 1
      ? ['', parts[0], '']
      : parts.length === 2
        ? ['', parts[0], parts[1]]
        : parts.length === 3
          ? parts
          : [];
  if (name === undefined || name === '' || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

function kubeletOf(scope: HandlerScope): KubeletClient {
  const kubelet = scope.context.kubelet;
  if (kubelet === undefined) throw new Error('the server was assembled without a kubelet client');
  return kubelet;
}

async function getNode(scope: HandlerScope, name: string): Promise<KubeObject | undefined> {
  const type = scope.context.registry.find({ group: '', version: 'v1' }, 'nodes');
  if (type === undefined || scope.context.storageFor === undefined) return undefined;
  return scope.context
    .storageFor(type)
    .get({ name })
    .catch(() => undefined);
}

/** A pod's node as the kubelet connection sees it: a missing node is the reference's `pods "<node>" not found`. */
async function nodeOfPod(scope: HandlerScope, nodeName: string): Promise<KubeObject> {
  const node = await getNode(scope, nodeName);
  if (node === undefined) throw notFound({ group: '', resource: 'pods' }, nodeName);
  return node;
}

/** Up to this much of a refusing kubelet's body becomes the error's message, as the reference reads. */
const MAX_ERROR_BODY_BYTES = 4096;

function kubeletAnswerError(code: number, body: string, name: string): StatusError {
  // The reference's GenericHttpResponseChecker keeps a kubelet's own words for 500 and 400.
  if (code === 500) return internalError(body);
  if (code === 400) return badRequest(body);
  const { reason, message } = genericServerResponse(code, 'GET', body);
  return new StatusError({
    code,
    reason,
    message: `${message} ( pods/log ${name})`,
    details: { name, kind: 'pods/log' },
  });
}

/**
 * `pods/log`: options read and validated, the container chosen, then the kubelet's log streamed
 * as it comes (`text/plain`); a pod without a node has no log yet (204).
 */
const podLog: Factory =
  (scope) =>
  async ({ info, req, res }) => {
    req.resume();
    const splitStreams = featureEnabled(scope.context.featureGates ?? {}, 'PodLogsQuerySplitStreams');
    const options = parsePodLogOptions(queryOf(req), splitStreams);
    validatePodLogOptions(info.name, options, splitStreams);
    const pod = await scope.storage.get({ namespace: info.namespace, name: info.name });
    const container = containerOf(pod, options.container);
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
    if (nodeName === '') {
      res.status(204).end();
      return;
    }
    const kubelet = kubeletOf(scope);
    const endpoint = kubelet.endpointOf(await nodeOfPod(scope, nodeName));
    const segments = [pod.metadata.namespace ?? '', pod.metadata.name ?? '', container]
      .map(encodeURIComponent)
      .join('/');
    const upstream = openUpstream({
      options: kubelet.requestOptions(endpoint, options.insecureSkipTLSVerifyBackend),
      secure: true,
      method: 'GET',
      path: `/containerLogs/${segments}${kubeletLogQuery(options)}`,
      timeoutMs: kubelet.timeoutMs,
    });
    res.on('close', () => upstream.abort());
    const answered = await upstream.answer.catch((error: Error) => {
      throw unclassified(error.message);
    });
    const { answer } = answered;
    const code = answer.statusCode ?? 0;
    if (code < 200 || code > 206)
      throw kubeletAnswerError(code, await readAtMost(answer, MAX_ERROR_BODY_BYTES), info.name);
    if (isWebSocketRequest(req)) {
      await streamOverWebSocket(req, req.socket, answer);
      return;
    }
    res.status(200).setHeader('Content-Type', 'text/plain');
    res.flushHeaders();
    answer.pipe(res);
    answer.on('error', () => res.destroy());
  };

/** The options kind of each connection, and the fields its query gives (the reference's connect options types). */
const CONNECT_OPTIONS = {
  exec: {
    kind: 'PodExecOptions',
    bools: ['stdin', 'stdout', 'stderr', 'tty'],
    strings: ['container'],
    lists: ['command'],
  },
  attach: { kind: 'PodAttachOptions', bools: ['stdin', 'stdout', 'stderr', 'tty'], strings: ['container'], lists: [] },
  portforward: { kind: 'PodPortForwardOptions', bools: [], strings: [], lists: [], ports: true },
  'pods/proxy': { kind: 'PodProxyOptions', bools: [], strings: [], lists: [], subpath: true },
  'nodes/proxy': { kind: 'NodeProxyOptions', bools: [], strings: [], lists: [], subpath: true },
  'services/proxy': { kind: 'ServiceProxyOptions', bools: [], strings: [], lists: [], subpath: true },
} as const satisfies Record<
  string,
  {
    kind: string;
    bools: readonly string[];
    strings: readonly string[];
    lists: readonly string[];
    ports?: true;
    subpath?: true;
  }
>;

type Connection = keyof typeof CONNECT_OPTIONS;

/**
 * A proxy's `path`: the URL's path after the subresource, with a leading slash when not empty
 * and the request's trailing slash kept, as the reference reads it.
 */
function subpathOf(info: RequestInfo): string {
  let path = info.parts.slice(3).join('/');
  if (path !== '' && !path.startsWith('/')) path = `/${path}`;
  if (info.path.endsWith('/') && !path.endsWith('/')) path += '/';
  return path;
}

/** The connection's options object, from the query as the reference converts it (empty values left out). */
function connectOptions(connection: Connection, info: RequestInfo, req: Request): KubeObject {
  const spec = CONNECT_OPTIONS[connection];
  const query = queryOf(req);
  const options: Record<string, unknown> = { kind: spec.kind, apiVersion: 'v1' };
  for (const field of spec.bools) {
    const text = query.get(field);
    if (text !== null && parseBool(text)) options[field] = true;
  }
  for (const field of spec.strings) {
    const text = query.get(field);
    if (text) options[field] = text;
  }
  for (const field of spec.lists) {
    const values = query.getAll(field);
    if (values.length > 0) options[field] = values;
  }
  if ('ports' in spec) {
    const ports = query.getAll('ports').map(parseInteger);
    if (ports.length > 0) options.ports = ports;
  }
  if ('subpath' in spec) {
    const path = subpathOf(info);
    if (path !== '') options.path = path;
  }
  return options as unknown as KubeObject;
}

/** Both admission phases for the connection, before anything is looked up. */
async function admit(scope: HandlerScope, connection: Connection, info: RequestInfo, req: Request): Promise<void> {
  const object = connectOptions(connection, info, req);
  const key = { namespace: info.namespace || undefined, name: info.name };
  await admitConnect(
    scope,
    { ...writeOriginOf(req), subresource: info.subresource },
    { key, kind: { group: '', version: 'v1', kind: CONNECT_OPTIONS[connection].kind }, object },
  );
}

type StreamConnection = 'exec' | 'attach' | 'portforward';

/** The kubelet's parameters of a stream, as the reference's streamParams writes them (url.Values: keys in order). */
function streamQuery(kind: StreamConnection, query: QueryParameters): string {
  const params = new URLSearchParams();
  const flag = (name: string) => {
    const text = query.get(name);
    return text !== null && parseBool(text);
  };
  if (kind === 'portforward') {
    const ports = query.getAll('ports').map(parseInteger);
    if (ports.length > 0) params.set('port', ports.join(','));
  } else {
    if (kind === 'exec') for (const command of query.getAll('command')) params.append('command', command);
    if (flag('stderr')) params.set('error', '1');
    if (flag('stdin')) params.set('input', '1');
    if (flag('stdout')) params.set('output', '1');
    if (flag('tty')) params.set('tty', '1');
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * What a WebSocket request offers that the server translates or tunnels itself (v5 for exec and
 * attach, SPDY tunneling for port-forward), when its feature gate is on; otherwise the protocols
 * go to the kubelet as they are, which speaks v1 to v4 of the channel protocols itself.
 */
function streamHandling(scope: HandlerScope, kind: StreamConnection, req: Request): 'translate' | 'tunnel' | 'pass' {
  const gates = scope.context.featureGates ?? {};
  if (
    kind !== 'portforward' &&
    offersStreamClose(req) &&
    featureEnabled(gates, 'TranslateStreamCloseWebsocketRequests')
  )
    return 'translate';
  if (kind === 'portforward' && tunneledProtocols(req).length > 0 && featureEnabled(gates, 'PortForwardWebsockets'))
    return 'tunnel';
  return 'pass';
}

const KUBELET_STREAM_PATHS: Readonly<Record<StreamConnection, string>> = {
  exec: 'exec',
  attach: 'attach',
  portforward: 'portForward',
};

/**
 * exec, attach and portforward: checked as the reference checks them, then the client's
 * protocol switch passed to the kubelet's `/exec`, `/attach` or `/portForward`, and the two
 * connections joined once the kubelet agrees; a request that asks no switch is 400.
 */
function podStream(kind: StreamConnection): Factory {
  return (scope) => async (request) => {
    const { info, req } = request;
    await admit(scope, kind, info, req);
    const query = queryOf(req);
    const pod = await scope.storage.get({ namespace: info.namespace, name: info.name });
    const container = kind === 'portforward' ? undefined : containerOf(pod, query.get('container') ?? '');
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
    if (nodeName === '') throw badRequest(`pod ${info.name} does not have a host assigned`);
    const kubelet = kubeletOf(scope);
    const endpoint = kubelet.endpointOf(await nodeOfPod(scope, nodeName));
    if (!asksUpgrade(req.headers)) throw badRequest('Upgrade request required');
    const segments = [
      pod.metadata.namespace ?? '',
      pod.metadata.name ?? '',
      ...(container === undefined ? [] : [container]),
    ]
      .map(encodeURIComponent)
      .join('/');
    const target = { options: kubelet.requestOptions(endpoint), secure: true, timeoutMs: kubelet.timeoutMs };
    const path = `/${KUBELET_STREAM_PATHS[kind]}/${segments}${streamQuery(kind, query)}`;
    const handling = streamHandling(scope, kind, req);
    if (handling === 'translate') {
      const flag = (name: string) => parseBool(query.get(name) ?? 'false');
      const options = { stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') };
      await translateToSpdy(req, req.socket, options, (headers) =>
        openUpstream({ ...target, method: 'POST', path, headers }),
      );
      return;
    }
    await forward(target, request, {
      path,
      requestPath: requestPathOf(req),
      rewrite: false,
      ...(handling === 'tunnel'
        ? {
            method: 'POST',
            drop: WEBSOCKET_HEADERS,
            headers: { upgrade: 'SPDY/3.1', 'x-stream-protocol-version': tunneledProtocols(req) },
            switched: (answered) =>
              void tunnelToKubelet(req, req.socket, answered.answer, answered.socket, answered.head),
          }
        : {}),
    });
  };
}

/** Connection upgrades that these subresources switch themselves: the HTTPS server hands them their raw socket. */
const CONNECT_UPGRADE_PATH =
  /^\/api\/v1\/(?:namespaces\/[^/]+\/pods\/[^/]+\/(?:exec|attach|portforward|proxy|log)|namespaces\/[^/]+\/services\/[^/]+\/proxy|nodes\/[^/]+\/proxy)(?:\/|$)/;

export function isConnectUpgrade(request: IncomingMessage): boolean {
  if (!asksUpgrade(request.headers)) return false;
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  return CONNECT_UPGRADE_PATH.test(query < 0 ? url : url.slice(0, query));
}

/** Where a proxy request goes: the backend's address and transport, and the path its location starts with. */
interface ProxyTarget {
  readonly options: UpstreamInit['options'];
  readonly secure: boolean;
  readonly timeoutMs: number;
}

/** The escaped path after `.../proxy` (empty, or starting with `/`; a trailing slash kept), from the request's own URL. */
function rawSubpath(req: Request, info: RequestInfo): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const rawPath = query < 0 ? url : url.slice(0, query);
  // `/api/v1[/namespaces/<ns>]/<resource>/<name>/proxy`: the segments before the subpath.
  const prefix = 3 + (info.namespace === '' ? 0 : 2) + 3;
  const segments = rawPath.split('/');
  return segments.length > prefix ? `/${segments.slice(prefix).join('/')}` : '';
}

/**
 * The most of an HTML page a proxy reads to rewrite its links (the reference reads any size);
 * a longer page goes on as it came.
 */
const MAX_REWRITTEN_HTML_BYTES = 8 * 1024 * 1024;

/** CORS is the API server's to answer, not the backend's: the reference drops the backend's. */
const CORS_HEADERS: ReadonlySet<string> = new Set([
  'access-control-allow-credentials',
  'access-control-allow-headers',
  'access-control-allow-methods',
  'access-control-allow-origin',
]);

/**
 * The reference's rewrite of a backend's redirect to the same host (or a path alone): it goes
 * through the proxy again, under the proxy's path.
 */
function rewriteLocation(
  location: string,
  backendHost: string,
  requestHost: string | undefined,
  pathPrepend: string,
): string {
  let target: URL;
  try {
    target = new URL(location, 'http://relative.invalid');
  } catch {
    return location;
  }
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(location) || location.startsWith('//');
  const host = absolute ? target.host : '';
  const differentHost = host !== '' && host !== backendHost && host !== requestHost;
  if (differentHost || !(absolute ? target.pathname : location).startsWith('/')) return location;
  let path = target.pathname;
  if (!path.startsWith(pathPrepend))
    path = `${pathPrepend}${path === '/' ? '' : path}${path.endsWith('/') ? '/' : ''}`.replace(/\/{2,}/g, '/');
  return `${path}${target.search}${target.hash}`;
}

function requestPathOf(req: Request): string {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

interface ForwardRoute {
  readonly path: string;
  readonly requestPath: string;
  readonly rewrite: boolean;
  readonly pathPrepend?: string;
  /** Instead of the client's. */
  readonly method?: string;
  readonly headers?: OutgoingHttpHeaders;
  /** The client's headers not passed on. */
  readonly drop?: ReadonlySet<string>;
  /** What to do once the backend has switched, instead of joining the two connections. */
  readonly switched?: (answered: Extract<UpstreamAnswer, { upgraded: true }>) => void;
}

/**
 * Passes the request on to `target` at `path`, and its answer back: a protocol switch joins
 * the two connections once the backend agrees to it. With `rewrite` (the proxies), the
 * backend's redirects to itself and the links of its HTML pages come back under the proxy's
 * path and its CORS headers are dropped, as the reference's proxy transport does. A backend that cannot be reached is 503
 * `error trying to reach service: ...`.
 */
async function forward(
  target: ProxyTarget,
  { req, res }: Parameters<ResourceHandler>[0],
  route: ForwardRoute,
): Promise<void> {
  const upgrade = asksUpgrade(req.headers);
  const backendHost = joinHostPort(String(target.options.host), String(target.options.port));
  const passed = forwardedHeaders(req.headers, req.socket.remoteAddress);
  for (const header of route.drop ?? []) delete passed[header];
  const upstream = openUpstream({
    ...target,
    method: route.method ?? req.method,
    path: route.path,
    headers: {
      ...passed,
      host: backendHost,
      ...(route.rewrite ? { 'x-forwarded-uri': route.requestPath } : {}),
      ...(upgrade ? { connection: 'Upgrade', upgrade: req.headers.upgrade } : {}),
      ...route.headers,
    },
    body: req,
  });
  // Once switched, the joined connections end each other; before, a client gone ends the backend's request.
  let switched = false;
  res.on('close', () => {
    if (!switched) upstream.abort();
  });
  const answered = await upstream.answer.catch((error: Error) => {
    throw serviceUnavailable(`error trying to reach service: ${error.message.replace(/^[A-Za-z]+ "[^"]*": /, '')}`);
  });
  if (answered.upgraded) {
    switched = true;
    if (route.switched !== undefined) {
      route.switched(answered);
      return;
    }
    auditSwitchedProtocols(req, answered.answer.statusCode ?? 101);
    joinConnections(req.socket, answered.answer, answered.socket, answered.head);
    return;
  }
  if (!route.rewrite) {
    streamAnswer(answered.answer, res);
    return;
  }
  const pathPrepend = route.pathPrepend ?? route.requestPath;
  const rewriteUrl = (url: string) => rewriteLocation(url, backendHost, req.headers.host, pathPrepend);
  const { answer } = answered;
  const location = answer.headers.location;
  if (location !== undefined) {
    streamAnswer(answer, res, { drop: CORS_HEADERS, headers: { location: rewriteUrl(location) } });
    return;
  }
  if (isHtml(answer.headers['content-type']) && req.method !== 'HEAD') {
    await answerRewritten(
      answer,
      res,
      { drop: CORS_HEADERS },
      (body) => rewriteHtmlBody(body, answer.headers['content-encoding'], rewriteUrl),
      MAX_REWRITTEN_HTML_BYTES,
    );
    return;
  }
  streamAnswer(answer, res, { drop: CORS_HEADERS });
}

/**
 * A proxy's request passed on at the path after `.../proxy`, the query kept. A GET of the
 * proxy's root without a slash is redirected to it, as the reference does, so that relative
 * links resolve.
 */
async function proxyTo(target: ProxyTarget, request: Parameters<ResourceHandler>[0]): Promise<void> {
  const { info, req, res } = request;
  const subpath = rawSubpath(req, info);
  const requestPath = requestPathOf(req);
  const queryAt = req.originalUrl.indexOf('?');
  const query = queryAt < 0 ? '' : req.originalUrl.slice(queryAt);
  if (subpath === '' && !asksUpgrade(req.headers) && (req.method === 'GET' || req.method === 'HEAD')) {
    req.resume();
    res.status(301).setHeader('Location', `${requestPath}/${query}`);
    res.end();
    return;
  }
  const pathPrepend = subpath === '' ? requestPath : requestPath.slice(0, requestPath.length - subpath.length);
  await forward(target, request, { path: `${subpath || '/'}${query}`, requestPath, rewrite: true, pathPrepend });
}

function plainTarget(scheme: string, host: string, port: number): ProxyTarget {
  const secure = scheme === 'https';
  // The reference's proxy transport verifies no backend certificate: the address came from the API, not from a name.
  return {
    options: { host, port, agent: false, ...(secure ? { rejectUnauthorized: false } : {}) },
    secure,
    timeoutMs: 0,
  };
}

function parsedId(info: RequestInfo, what: string): { scheme: string; name: string; port: string } {
  const id = splitSchemeNamePort(info.name);
  if (id === undefined) throw badRequest(`invalid ${what} request ${goQuote(info.name)}`);
  return id;
}

/** `pods/proxy`: the pod's address, at the port named or the first one its containers declare. */
const podProxy: Factory = (scope) => async (request) => {
  const { info, req } = request;
  await admit(scope, 'pods/proxy', info, req);
  const id = parsedId(info, 'pod');
  const pod = await scope.storage.get({ namespace: info.namespace, name: id.name });
  const spec = pod.spec as { containers?: { ports?: { containerPort?: number }[] }[] } | undefined;
  const port =
    id.port ||
    String(spec?.containers?.find((container) => (container.ports ?? []).length > 0)?.ports?.[0].containerPort ?? '');
  const status = pod.status as { podIP?: string; podIPs?: { ip?: string }[] } | undefined;
  const podIP = status?.podIPs?.[0]?.ip ?? status?.podIP ?? '';
  if (!globalUnicast(podIP)) throw badRequest('address not allowed');
  await proxyTo(plainTarget(id.scheme, podIP, port === '' ? 80 : Number(port)), request);
};

/** `nodes/proxy`: the node's kubelet, or another port of the node's address. */
const nodeProxy: Factory = (scope) => async (request) => {
  const { info, req } = request;
  await admit(scope, 'nodes/proxy', info, req);
  const id = parsedId(info, 'node');
  const kubelet = kubeletOf(scope);
  const node = await scope.storage.get({ name: id.name });
  const endpoint = kubelet.endpointOf(node);
  await checkProxyableHost(endpoint.host);
  const target =
    id.port === '' || id.port === String(endpoint.port)
      ? { options: kubelet.requestOptions(endpoint), secure: true, timeoutMs: kubelet.timeoutMs }
      : plainTarget(id.scheme, endpoint.host, Number(id.port));
  await proxyTo(target, request);
};

interface EndpointsObject {
  readonly subsets?: readonly {
    readonly addresses?: readonly {
      readonly ip?: string;
      readonly targetRef?: { readonly kind?: string; readonly namespace?: string; readonly name?: string };
    }[];
    readonly ports?: readonly { readonly name?: string; readonly port?: number }[];
  }[];
}

async function storageOfCore(scope: HandlerScope, resource: string) {
  const type = scope.context.registry.find({ group: '', version: 'v1' }, resource);
  if (type === undefined || scope.context.storageFor === undefined)
    throw new Error(`core v1 ${resource} is not served`);
  return scope.context.storageFor(type);
}

/** Whether the address belongs to a pod of the namespace that has that IP: the reference proxies to pods only. */
async function isPodAddress(
  scope: HandlerScope,
  namespace: string,
  address: { ip?: string; targetRef?: { namespace?: string; name?: string } },
): Promise<boolean> {
  const ref = address.targetRef;
  if (ref === undefined || ref.namespace !== namespace || !ref.name) return false;
  const pod = await (await storageOfCore(scope, 'pods')).get({ namespace, name: ref.name }).catch(() => undefined);
  const ips = ((pod?.status as { podIPs?: { ip?: string }[] } | undefined)?.podIPs ?? []).map((entry) => entry.ip);
  return ips.includes(address.ip);
}

/**
 * `services/proxy`: a ready address of the Service's Endpoints that belongs to one of its pods,
 * at the port named (a Service port's number names the port of that name), as the reference
 * chooses one (from a random subset and address on).
 */
const serviceProxy: Factory = (scope) => async (request) => {
  const { info, req } = request;
  await admit(scope, 'services/proxy', info, req);
  const id = parsedId(info, 'service');
  let portName = id.port;
  if (/^[+-]?\d+$/.test(id.port)) {
    const service = await scope.storage.get({ namespace: info.namespace, name: id.name });
    const number = Number(id.port);
    const declared = ((service.spec as { ports?: { port?: number; name?: string }[] } | undefined)?.ports ?? []).find(
      (port) => port.port === number,
    );
    if (declared === undefined)
      throw serviceUnavailable(`no service port ${number} found for service ${goQuote(id.name)}`);
    portName = declared.name ?? '';
  }
  const endpoints = (await (
    await storageOfCore(scope, 'endpoints')
  )
    .get({ namespace: info.namespace, name: id.name })
    .catch(() => {
      throw notFound({ group: '', resource: 'services' }, id.name);
    })) as KubeObject & EndpointsObject;
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${goQuote(id.name)}`);
  const subsetSeed = Math.floor(Math.random() * subsets.length);
  for (let s = 0; s < subsets.length; s++) {
    const subset = subsets[(subsetSeed + s) % subsets.length];
    const addresses = subset.addresses ?? [];
    const port = (subset.ports ?? []).find((candidate) => (candidate.name ?? '') === portName);
    if (addresses.length === 0 || port?.port === undefined) continue;
    const addressSeed = Math.floor(Math.random() * addresses.length);
    for (let a = 0; a < addresses.length; a++) {
      const address = addresses[(addressSeed + a) % addresses.length];
      if (!(await isPodAddress(scope, info.namespace, address))) continue;
      await proxyTo(plainTarget(id.scheme, address.ip ?? '', port.port), request);
      return;
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${goQuote(info.name)}`);
};

const PROXY_VERBS: readonly Verb[] = ['create', 'delete', 'get', 'patch', 'update'];
const forVerbs = (verbs: readonly Verb[], factory: Factory): Partial<Record<Verb, Factory>> =>
  Object.fromEntries(verbs.map((verb) => [verb, factory]));

export const podLogHandlers = { get: podLog };
export const podExecHandlers = forVerbs(['create', 'get'], podStream('exec'));
export const podAttachHandlers = forVerbs(['create', 'get'], podStream('attach'));
export const podPortForwardHandlers = forVerbs(['create', 'get'], podStream('portforward'));
export const podProxyHandlers = forVerbs(PROXY_VERBS, podProxy);
export const nodeProxyHandlers = forVerbs(PROXY_VERBS, nodeProxy);
export const serviceProxyHandlers = forVerbs(PROXY_VERBS, serviceProxy);
