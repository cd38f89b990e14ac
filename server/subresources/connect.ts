/**
 * The subresources that connect through a node to a container or a pod (`pods/log`, `exec`,
 * `attach`, `portforward`, `proxy`, `nodes/proxy`, `services/proxy`). capstan runs no kubelet
 * client and proxies nothing, but a served subresource answers as the reference does up to the
 * point where it would dial: a connection admitted first (CONNECT, with its options object:
 * webhooks may refuse it), then the pod or node looked up, the container checked, a pod without
 * a node (log: 204 No Content; exec, attach, portforward: 400), a node missing or without an
 * address, an address the reference will not proxy to. Past that point the answer is 503: the
 * backend cannot be reached from here.
 */
import { isIP } from 'node:net';
import type { Request } from 'express';
import type { KubeObject } from '../../storage/objects/types';
import { auditAnnotationsOf } from '../audit/request-audit';
import type { RequestInfo } from '../http/request-info';
import type { HandlerScope, ResourceHandler } from '../handlers/scope';
import { admitConnect } from '../registry/store/admission';
import { parseBool, parseInteger, queryOf } from '../request/query';
import { badRequest, notFound, serviceUnavailable, unclassified } from '../status/catalogue';
import type { Verb } from '../registry/types';

type Factory = (scope: HandlerScope) => ResourceHandler;

interface NamedContainer {
  readonly name?: string;
}

function containerNames(pod: KubeObject, field: string): string[] {
  const list = (pod.spec as Record<string, NamedContainer[] | undefined> | undefined)?.[field] ?? [];
  return list.map((container) => container.name ?? '');
}

/** The container a log, exec or attach names, or the pod's only one; the reference's 400s otherwise. */
function checkContainer(pod: KubeObject, requested: string): void {
  const name = pod.metadata.name ?? '';
  const containers = containerNames(pod, 'containers');
  if (requested === '') {
    if (containers.length === 1) return;
    const init = containerNames(pod, 'initContainers');
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${init.length > 0 ? ` or one of the init containers: [${init.join(' ')}]` : ''}`);
  }
  const known = [...containers, ...containerNames(pod, 'initContainers'), ...containerNames(pod, 'ephemeralContainers')];
  if (!known.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
}

/** The address types the reference prefers to reach a kubelet by, in order. */
const PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];

interface NodeAddress {
  readonly type?: string;
  readonly address?: string;
}

/** The address a node is reached by; the reference's 500 when it has none of a preferred type. */
function nodeAddress(node: KubeObject): string {
  const addresses = (node.status as { addresses?: NodeAddress[] } | undefined)?.addresses ?? [];
  for (const type of PREFERRED_ADDRESS_TYPES) {
    const found = addresses.find((address) => address.type === type && address.address);
    if (found) return found.address!;
  }
  const known = addresses.map((address) => `{${address.type ?? ''} ${address.address ?? ''}}`).join(' ');
  throw unclassified(`no preferred addresses found; known addresses: [${known}]`);
}

/** The reference proxies to no loopback, link-local or unspecified address. */
function proxyable(address: string | undefined): boolean {
  if (address === undefined || isIP(address) === 0) return false;
  if (isIP(address) === 4) return !(address.startsWith('127.') || address.startsWith('169.254.') || address === '0.0.0.0');
  const lower = address.toLowerCase();
  return !(lower === '::1' || lower === '::' || lower.startsWith('fe80:'));
}

function unreachable(): never {
  throw serviceUnavailable('capstan does not connect to kubelets, pods or services');
}

async function getNode(scope: HandlerScope, name: string): Promise<KubeObject | undefined> {
  const type = scope.context.registry.find({ group: '', version: 'v1' }, 'nodes');
  if (type === undefined || scope.context.storageFor === undefined) return undefined;
  return scope.context.storageFor(type).get({ name }).catch(() => undefined);
}

/** A pod's node as the kubelet connection sees it: a missing node is the reference's `pods "<node>" not found`. */
async function kubeletAddressOf(scope: HandlerScope, nodeName: string): Promise<string> {
  const node = await getNode(scope, nodeName);
  if (node === undefined) throw notFound({ group: '', resource: 'pods' }, nodeName);
  return nodeAddress(node);
}

/** The options kind of each connection, and the fields its query gives (the reference's connect options types). */
const CONNECT_OPTIONS = {
  exec: { kind: 'PodExecOptions', bools: ['stdin', 'stdout', 'stderr', 'tty'], strings: ['container'], lists: ['command'] },
  attach: { kind: 'PodAttachOptions', bools: ['stdin', 'stdout', 'stderr', 'tty'], strings: ['container'], lists: [] },
  portforward: { kind: 'PodPortForwardOptions', bools: [], strings: [], lists: [], ports: true },
  'pods/proxy': { kind: 'PodProxyOptions', bools: [], strings: [], lists: [], subpath: true },
  'nodes/proxy': { kind: 'NodeProxyOptions', bools: [], strings: [], lists: [], subpath: true },
  'services/proxy': { kind: 'ServiceProxyOptions', bools: [], strings: [], lists: [], subpath: true },
} as const satisfies Record<string, { kind: string; bools: readonly string[]; strings: readonly string[]; lists: readonly string[]; ports?: true; subpath?: true }>;

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
  await admitConnect(scope, { user: req.user, subresource: info.subresource, auditAnnotations: auditAnnotationsOf(req) }, { key, kind: { group: '', version: 'v1', kind: CONNECT_OPTIONS[connection].kind }, object });
}

type PodConnection = 'log' | 'exec' | 'attach' | 'portforward';

function podConnect(kind: PodConnection): Factory {
  return (scope) => async ({ info, req, res }) => {
    req.resume();
    // A log is read, not connected to: the reference admits no GET.
    if (kind !== 'log') await admit(scope, kind, info, req);
    const pod = await scope.storage.get({ namespace: info.namespace, name: info.name });
    if (kind !== 'portforward') checkContainer(pod, queryOf(req).get('container') ?? '');
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
    if (nodeName === '') {
      if (kind === 'log') {
        res.status(204).end();
        return;
      }
      throw badRequest(`pod ${info.name} does not have a host assigned`);
    }
    await kubeletAddressOf(scope, nodeName);
    unreachable();
  };
}

const podProxy: Factory = (scope) => async ({ info, req }) => {
  req.resume();
  await admit(scope, 'pods/proxy', info, req);
  const pod = await scope.storage.get({ namespace: info.namespace, name: info.name });
  if (!proxyable((pod.status as { podIP?: string } | undefined)?.podIP)) throw badRequest('address not allowed');
  unreachable();
};

const nodeProxy: Factory = (scope) => async ({ info, req }) => {
  req.resume();
  await admit(scope, 'nodes/proxy', info, req);
  const node = await scope.storage.get({ name: info.name });
  if (!proxyable(nodeAddress(node))) throw badRequest('address not allowed');
  unreachable();
};

/** capstan keeps no endpoints to proxy to: the reference answers a service without any as not found. */
const serviceProxy: Factory = (scope) => async ({ info, req }) => {
  req.resume();
  await admit(scope, 'services/proxy', info, req);
  await scope.storage.get({ namespace: info.namespace, name: info.name });
  throw notFound({ group: '', resource: 'services' }, info.name);
};

const PROXY_VERBS: readonly Verb[] = ['create', 'delete', 'get', 'patch', 'update'];
const forVerbs = (verbs: readonly Verb[], factory: Factory): Partial<Record<Verb, Factory>> => Object.fromEntries(verbs.map((verb) => [verb, factory]));

export const podLogHandlers = { get: podConnect('log') };
export const podExecHandlers = forVerbs(['create', 'get'], podConnect('exec'));
export const podAttachHandlers = forVerbs(['create', 'get'], podConnect('attach'));
export const podPortForwardHandlers = forVerbs(['create', 'get'], podConnect('portforward'));
export const podProxyHandlers = forVerbs(PROXY_VERBS, podProxy);
export const nodeProxyHandlers = forVerbs(PROXY_VERBS, nodeProxy);
export const serviceProxyHandlers = forVerbs(PROXY_VERBS, serviceProxy);
