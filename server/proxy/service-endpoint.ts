/**
 * Where an extension server is reached: the APIService's Service, through the ready addresses of
 * its EndpointSlices and the port the slices give the Service port's name, as the reference
 * routes when `--enable-aggregator-routing` is on (capstan has no cluster network to reach a
 * cluster IP through). An ExternalName Service is reached at its external name. Every failure
 * carries the reason and message the reference's availability controller reports for it.
 */
import type { KubeObject } from '../../api/objects';
import { getCached, type StorageOf } from '../admission/lookup';
import type { ServiceReference } from '../../api/apiregistration';

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

export async function resolveServiceEndpoint(
  reference: ServiceReference,
  storageOf: StorageOf,
): Promise<EndpointResolution> {
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
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
