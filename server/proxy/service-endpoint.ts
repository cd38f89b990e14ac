/**
 * Where a Service that an APIService or a webhook names is reached, as `--enable-aggregator-routing`
 * chooses for both (the reference gives them one resolver): on, through the ready addresses of
 * its EndpointSlices and the port the slices give the Service port's name; off, the default, at
 * its cluster IP and port, which only a host that routes cluster IPs (kube-proxy's node) reaches.
 * An ExternalName Service is reached at its external name either way. Every failure carries the
 * reason and message the reference's availability controller reports for it.
 */
import type { KubeObject } from '../../api/objects';
import { getCached, type StorageOf } from '../admission/lookup';
import type { ServiceReference } from '../../api/apiregistration';
import { joinHostPort } from '../net/host-port';

/** The address to dial, and the name the serving certificate must carry. */
export interface ServiceEndpoint {
  readonly host: string;
  readonly port: number;
  readonly serverName: string;
}

export type EndpointResolution =
  | { readonly ok: true; readonly endpoint: ServiceEndpoint }
  | { readonly ok: false; readonly reason: string; readonly message: string };

/** Names the Service an EndpointSlice belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

interface ServicePort {
  readonly port: number;
  readonly name?: string;
}

interface EndpointSlice {
  readonly endpoints?: ReadonlyArray<{
    readonly addresses?: readonly string[];
    readonly conditions?: { readonly ready?: boolean | null };
  }>;
  readonly ports?: ReadonlyArray<{ readonly name?: string | null; readonly port?: number | null }>;
}

/** How requests reach the Services that APIServices and webhooks name. */
export interface ServiceResolver {
  /** Where a request to the Service goes. */
  resolve(reference: ServiceReference): Promise<EndpointResolution>;
  /**
   * The same after the availability controller's checks, which it makes whichever way it
   * routes: a ClusterIP Service listens on the port and has a ready endpoint for it.
   */
  resolveChecked(reference: ServiceReference): Promise<EndpointResolution>;
}

/** `--enable-aggregator-routing`: `toEndpoints` on, or cluster IPs. */
export function serviceResolver(storageOf: StorageOf, toEndpoints: boolean): ServiceResolver {
  if (toEndpoints) {
    const resolve = (reference: ServiceReference) => resolveServiceEndpoint(reference, storageOf);
    return { resolve, resolveChecked: resolve };
  }
  return {
    resolve: (reference) => resolveClusterIP(reference, storageOf, false),
    resolveChecked: (reference) => resolveClusterIP(reference, storageOf, true),
  };
}

/**
 * The reference's ResolveCluster: the cluster IP and the Service's port, or an ExternalName's
 * name; with `checkEndpoints`, a ClusterIP Service's endpoints are checked first. What the
 * reference's resolver refuses fails the discovery check with its words.
 */
async function resolveClusterIP(
  reference: ServiceReference,
  storageOf: StorageOf,
  checkEndpoints: boolean,
): Promise<EndpointResolution> {
  const { namespace, name, port } = reference;
  const service = await getCached(storageOf('', 'services'), name, namespace);
  if (service === undefined)
    return {
      ok: false,
      reason: 'ServiceNotFound',
      message: `service/${name} in ${JSON.stringify(namespace)} is not present`,
    };
  const spec = (service.spec ?? {}) as {
    type?: string;
    clusterIP?: string;
    externalName?: string;
    ports?: readonly ServicePort[];
  };
  const refused = (message: string): EndpointResolution => ({ ok: false, reason: 'FailedDiscoveryCheck', message });
  const serverName = `${name}.${namespace}.svc`;
  switch (spec.type) {
    case 'ExternalName':
      return { ok: true, endpoint: { host: spec.externalName ?? '', port, serverName } };
    case 'ClusterIP':
    case 'NodePort':
    case 'LoadBalancer': {
      if (spec.type === 'ClusterIP') {
        if (checkEndpoints) {
          const endpoints = await resolveServiceEndpoint(reference, storageOf);
          if (!endpoints.ok) return endpoints;
        }
        if (spec.clusterIP === 'None') return refused('cannot route to service with ClusterIP "None"');
      }
      if (!(spec.ports ?? []).some((candidate) => candidate.port === port))
        return refused(`no service port ${port} found for service ${JSON.stringify(name)}`);
      return { ok: true, endpoint: { host: spec.clusterIP ?? '', port, serverName } };
    }
    default:
      return refused(`unsupported service type ${JSON.stringify(spec.type ?? '')}`);
  }
}

async function resolveServiceEndpoint(reference: ServiceReference, storageOf: StorageOf): Promise<EndpointResolution> {
  const { namespace, name, port } = reference;
  const where = `service/${name} in ${JSON.stringify(namespace)}`;
  const service = await getCached(storageOf('', 'services'), name, namespace);
  if (service === undefined) return { ok: false, reason: 'ServiceNotFound', message: `${where} is not present` };
  const spec = (service.spec ?? {}) as { type?: string; externalName?: string; ports?: readonly ServicePort[] };
  const serverName = `${name}.${namespace}.svc`;
  if (spec.type === 'ExternalName') return { ok: true, endpoint: { host: spec.externalName ?? '', port, serverName } };

  const servicePort = (spec.ports ?? []).find((candidate) => candidate.port === port);
  if (servicePort === undefined)
    return { ok: false, reason: 'ServicePortError', message: `${where} is not listening on port ${port}` };
  const portName = servicePort.name ?? '';
  const slices = (
    await storageOf('discovery.k8s.io', 'endpointslices').list(
      { namespace },
      { resourceVersion: '0', predicate: sliceOf(name) },
    )
  ).items as readonly (KubeObject & EndpointSlice)[];
  if (slices.length === 0)
    return { ok: false, reason: 'EndpointsNotFound', message: `cannot find endpointslices for ${where}` };
  for (const slice of slices) {
    const slicePort = (slice.ports ?? []).find(
      (candidate) => (candidate.name ?? '') === portName && typeof candidate.port === 'number',
    );
    const ready = (slice.endpoints ?? []).find(
      (endpoint) => endpoint.conditions?.ready !== false && (endpoint.addresses ?? []).length > 0,
    );
    if (slicePort?.port && ready?.addresses)
      return { ok: true, endpoint: { host: ready.addresses[0], port: slicePort.port, serverName } };
  }
  return {
    ok: false,
    reason: 'MissingEndpoints',
    message: `endpointslices for ${where} have no addresses with port name ${JSON.stringify(portName)}`,
  };
}

function sliceOf(serviceName: string) {
  return {
    everything: false,
    matches: (object: KubeObject) => object.metadata.labels?.[SERVICE_NAME_LABEL] === serviceName,
  };
}

/** `https://host:port` with IPv6 hosts in brackets. */
export function endpointOrigin({ host, port }: ServiceEndpoint): string {
  return `https://${joinHostPort(host, port)}`;
}
