/**
 * The Available condition of every APIService, as the reference's two availability controllers
 * keep it: a local APIService is always available; a remote one is available once its Service
 * exists and listens on the port, its EndpointSlices have a ready address for that port, and the
 * extension server answers its discovery path (`/apis/<group>/<version>`) with a 2xx or 3xx
 * within 5 s. Each check runs when the APIService changes and again every resync period, since
 * Services, endpoints and servers change without the APIService knowing. The status is written
 * only when the condition changed; its transition time moves only when its status did.
 */
import { request, type RequestOptions } from 'node:https';
import { metaTime, type KubeObject } from '../../api/objects';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';
import type { ResourceType } from '../registry/types';
import {
  availableConditionOf,
  groupVersionOf,
  LOCAL_AVAILABLE,
  serviceOf,
  type AvailableCondition,
} from '../../api/apiregistration';
import type { AvailabilityMetrics } from './availability-metrics';
import { dialErrorText } from '../proxy/forwarding';
import { connectToExtension, identityHeaders, type ProxyClientCertificate } from './extension-transport';
import { endpointOrigin, type ServiceResolver } from '../proxy/service-endpoint';

/** The reference re-checks every APIService this often (its informer's resync period). */
export const AVAILABILITY_RESYNC_MS = 30_000;
const DISCOVERY_CHECK_TIMEOUT_MS = 5_000;

export type CheckedCondition = Pick<AvailableCondition, 'status' | 'reason' | 'message'>;

const LOCAL: CheckedCondition = LOCAL_AVAILABLE;
/** The identity of the check itself, which any extension server must let read its discovery. */
const CHECKER = { name: 'system:kube-aggregator', groups: ['system:masters'] };

/** What the reference's controllers would say of `apiService` now. */
export async function checkAvailability(
  apiService: KubeObject,
  services: ServiceResolver,
  clientCertificate: ProxyClientCertificate | undefined,
): Promise<CheckedCondition> {
  const service = serviceOf(apiService);
  if (service === undefined) return LOCAL;
  const connection = await connectToExtension(apiService, service, { services, clientCertificate, skipVerify: true });
  if (!connection.ok) return { status: 'False', reason: connection.reason, message: connection.message };
  const { group, version } = groupVersionOf(apiService);
  const path = apiService.metadata.name === 'v1.' ? `/api/${version}` : `/apis/${group}/${version}`;
  const url = `${endpointOrigin(connection.endpoint)}${path}`;
  const failure = await discoveryCheck({ url, path, tls: connection.tls });
  if (failure !== undefined)
    return {
      status: 'False',
      reason: 'FailedDiscoveryCheck',
      message: `failing or missing response from ${url}: ${failure}`,
    };
  return { status: 'True', reason: 'Passed', message: 'all checks passed' };
}

/** Undefined when the server answered 2xx or 3xx; else what went wrong, in Go's words where they are shown. */
function discoveryCheck(options: { url: string; path: string; tls: RequestOptions }): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(
      {
        ...options.tls,
        method: 'GET',
        path: options.path,
        headers: identityHeaders(CHECKER),
        timeout: DISCOVERY_CHECK_TIMEOUT_MS,
      },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 400 ? undefined : `bad status from ${options.url}: ${code}`);
      },
    );
    const deadline = setTimeout(
      () => req.destroy(new Error('context deadline exceeded (Client.Timeout exceeded while awaiting headers)')),
      DISCOVERY_CHECK_TIMEOUT_MS,
    );
    req.on('close', () => clearTimeout(deadline));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve(`Get ${JSON.stringify(options.url)}: ${dialErrorText(error, options.tls.host, options.tls.port)}`),
    );
    req.end();
  });
}

function conditionChanged(current: AvailableCondition | undefined, next: CheckedCondition): boolean {
  return (
    current === undefined ||
    current.status !== next.status ||
    current.reason !== next.reason ||
    current.message !== next.message
  );
}

/** Now, at the second, as the API's timestamps are. */
function nowTimestamp(): string {
  return metaTime(new Date());
}

export interface AvailabilityController {
  /** Checks this APIService again soon (it changed). */
  request(name: string): void;
  stop(): void;
}

/** The reference runs this many checks at once: one slow extension server does not hold up the others. */
const WORKERS = 5;

export function startAvailabilityController(options: {
  readonly current: ReadonlyMap<string, KubeObject>;
  /** Resolves when `current` holds the stored APIServices. */
  readonly synced: Promise<void>;
  readonly services: ServiceResolver;
  readonly operations: ObjectOperations;
  readonly type: ResourceType;
  readonly clientCertificate: ProxyClientCertificate | undefined;
  readonly resyncMs?: number;
  readonly metrics?: AvailabilityMetrics;
}): AvailabilityController {
  const stopping = new AbortController();

  /** Writes the condition when it changed; throws after a failed discovery check, so the check is retried with backoff, as the reference requeues it. */
  async function sync(name: string): Promise<void> {
    const apiService = options.current.get(name);
    if (apiService === undefined) return;
    const checked = await checkAvailability(apiService, options.services, options.clientCertificate);
    // The object may have changed while the check ran; the condition is merged into the latest.
    const previous = availableConditionOf(options.current.get(name) ?? apiService);
    if (conditionChanged(previous, checked)) {
      options.metrics?.transitioned(name, previous, checked);
      await options.operations.updateObject(
        options.type,
        { name },
        (object) => setAvailableCondition(object, checked),
        'status',
      );
    }
    if (checked.reason === 'FailedDiscoveryCheck') throw new Error(checked.message);
  }

  const queue = startWorkQueue<string>({
    stop: stopping.signal,
    workers: WORKERS,
    handle: sync,
  });

  void options.synced.then(() => {
    for (const name of options.current.keys()) queue.add(name);
  });
  const resync = setInterval(() => {
    for (const name of options.current.keys()) queue.add(name);
  }, options.resyncMs ?? AVAILABILITY_RESYNC_MS);
  resync.unref();

  return {
    request: (name) => queue.add(name),
    stop() {
      stopping.abort();
      clearInterval(resync);
    },
  };
}

/** Puts `checked` in the object's Available condition; its transition time moves only when its status does. May mutate `object`. */
function setAvailableCondition(object: KubeObject, checked: CheckedCondition): void {
  const status = (object.status ?? {}) as { conditions?: AvailableCondition[] };
  const conditions = Array.isArray(status.conditions) ? [...status.conditions] : [];
  const index = conditions.findIndex((condition) => condition.type === 'Available');
  const previous = index >= 0 ? conditions[index] : undefined;
  const lastTransitionTime =
    previous !== undefined && previous.status === checked.status && previous.lastTransitionTime
      ? previous.lastTransitionTime
      : nowTimestamp();
  const next: AvailableCondition = {
    type: 'Available',
    status: checked.status,
    lastTransitionTime,
    reason: checked.reason,
    message: checked.message,
  };
  if (index >= 0) conditions[index] = next;
  else conditions.push(next);
  object.status = { ...status, conditions };
}
