/**
 * Assembles one replica's control plane from its options: the store (etcd, or the embedded
 * SQLite file), the registry of served kinds, one watch cache per stored resource fed by one
 * store watch, shared compaction, the resource API's routes, admission, and the controllers
 * that run on whichever replica holds the leader lease.
 *
 * Start-up order: `startControlPlane` opens storage and starts the caches; the caller mounts
 * `routes` and the `health` checks on its HTTPS server and listens; then `start` writes the
 * bootstrap objects and begins campaigning for the controllers' lease.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type express from 'express';
import type { IncomingMessage } from 'node:http';
import { Compactor } from '../storage/compactor';
import { startCacheSet, type CachedResource, type CacheSet } from '../storage/cache/cache-set';
import type { WatchCache } from '../storage/cache/watch-cache';
import { routedCacheSet } from '../storage/cache/routed-cache-set';
import { ResourceStore } from '../storage/objects/resource-store';
import { watchCacheDisabled } from './config/watch-cache-sizes';
import { setClusterPolicy } from './validation/cluster-policy';
import type { RevisionedStore } from '../storage/store';
import type { ObjectStorage } from '../storage/objects/types';
import { admissionChain, type Admission } from './admission/types';
import { selectAdmissionPlugins } from './admission/plugins';
import { NO_PLUGIN_CONFIGURATIONS, readAdmissionConfiguration } from './admission/admission-configuration';
import { serviceIPRangesOf, type ServerOptions } from './config/flags';
import { moveOldKeyPrefixes } from './moved-key-prefixes';
import { openStoreLocations, type StoreLocation } from './store-locations';
import { featureEnabled, featureGateReader } from './config/feature-enabled';
import { REGISTERED_GROUP_VERSIONS } from './config/registered-group-versions';
import { runtimeConfigEnabled } from './config/runtime-config';
import { createApiserverMetrics, type ApiserverMetrics } from './metrics/apiserver-metrics';
import { registerDeclarativeValidationMetrics } from './metrics/declarative-validation-metrics';
import { recordCompactions } from './metrics/compaction-metrics';
import { instrumentStore, resourceByKeyPrefix, type StoredResource } from './metrics/store-metrics';
import { observeWatchCaches, type ObservedCache } from './metrics/watch-cache-metrics';
import { HA_ESTABLISHING_DELAY_MS, startCRDController } from './apiextensions/crd-controller';
import { startCRDServing } from './apiextensions/crd-serving';
import { apiOperations } from './client/api-operations';
import type { ObjectOperations } from './client/operations';
import {
  keepKubernetesService,
  keepSystemNamespaces,
  KUBERNETES_SERVICE_INTERVAL_MS,
  SYSTEM_NAMESPACES_INTERVAL_MS,
  createSystemPriorityClasses,
  ensureDefaultServiceCIDR,
} from './controllers/bootstrap';
import {
  MASTER_LEASE_TTL_SECONDS,
  startEndpointLeaseReconciler,
  type EndpointLeaseReconciler,
} from './controllers/endpoint-leases';
import { controllerEnabled, type EmbeddedController } from './config/controller-selection';
import { startGarbageCollector } from './controllers/garbage-collector';
import { startLeaderElection, type LeaderElection } from './controllers/leader-election';
import { startNamespaceController } from './controllers/namespace-controller';
import { startQuotaController } from './controllers/quota-controller';
import { startStorageProtection } from './controllers/storage-protection';
import { startVolumeAttributesClassProtection } from './controllers/volume-attributes-class-protection';
import { startVolumeBinder } from './controllers/volume-binder';
import { startPolicyTypeChecking } from './controllers/policy-type-checking';
import { startServiceIPRepair } from './controllers/service-ip-repair';
import { mountDiscovery } from './discovery/mount-discovery';
import { mountResourceRoutes } from './handlers/routes';
import { configureAuthorization } from './authz/configured-authorization';
import { rbacEscalationPrevention } from './authz/rbac/escalation-admission';
import { accessReviewKinds } from './subresources/access-review-kinds';
import { startClusterRoleAggregation } from './controllers/clusterrole-aggregation';
import { reconcileBootstrapPolicy } from './controllers/rbac-bootstrap';
import type { Authorizer } from './authz/types';
import { representationSettingsFrom } from './codec/representation-settings';
import { storageValueCodec } from './codec/storage-value';
import type { StoreContext } from './registry/store/scope';
import type { StoreHooks } from './registry/store/hooks';
import { functionCheck, PostStartHook } from './health/checks';
import type { GroupResource } from './encryption/encryption-providers';
import { mountOpenAPI, OPENAPI_LISTED_PATHS } from './openapi/mount-openapi';
import { ClusterIPAllocator, ipAddressReservations } from './registry/allocators/cluster-ip';
import { podCertificateSigningHooks } from './registry/allocators/pod-certificate-signing';
import { admissionPolicyParamHooks } from './registry/allocators/policy-param-access';
import { deviceAdminAccessHooks } from './registry/allocators/device-admin-access';
import { serviceAllocationHooks } from './registry/allocators/service-hooks';
import { ServiceNodePorts } from './registry/allocators/node-ports';
import { SharedPortBitmap } from './registry/allocators/port-bitmap';
import { startNodePortRepair } from './controllers/node-port-repair';
import type { MutableResourceRegistry } from './registry/registry';
import { BUILTIN_TYPES, builtinRegistry } from './builtin-types';
import type { ResourceType } from './registry/types';
import { schemaData } from './schema/definitions';
import type { HealthOptions, MountedRoutes } from './app';
import { FlowControl } from './flowcontrol/flow-control';
import { componentStatusKind } from './componentstatus/component-status-kind';
import { defaultComponents } from './componentstatus/probes';
import { startConfigConsumer, type ConfigConsumer } from './flowcontrol/config-consumer';
import { ensureBootstrapConfiguration } from './flowcontrol/config-producer';
import { startDanglingConditions } from './flowcontrol/dangling-condition';
import { startAggregator } from './aggregator/aggregator';
import { serviceResolver } from './proxy/service-endpoint';
import { readProxyClientCertificate } from './aggregator/extension-transport';
import { createKubeletClient } from './kubelet/kubelet-client';
import { startStorageVersionMigrator } from './controllers/storage-version-migrator';
import { apiserverIdentity, startIdentityLease } from './controllers/apiserver-identity-lease';
import {
  publishedResources,
  startStorageVersionPublisher,
  type StorageVersionPublisher,
} from './controllers/storage-version-publisher';
import { withStorageVersionPrecondition } from './http/with-storage-version-precondition';
import { startCoordinatedLeaderElection } from './controllers/coordinated-leader-election';
import { isWatchUpgrade } from './handlers/watch-websocket';
import { isConnectUpgrade } from './subresources/connect';

/** The Lease the controllers' leader holds, in kube-system. */
export const CONTROLLERS_LEASE = 'capstan-controllers';
/** The Lease the coordinated leader election controller's leader holds, in kube-system, as the reference names it. */
const COORDINATED_ELECTION_LEASE = 'leader-election-controller';
/** How often the controllers, once leading, look again whether the watch caches are ready. */
const CACHE_READY_POLL_MS = 1_000;

export interface ControlPlane {
  readonly store: RevisionedStore;
  /** Served types; add and remove types here while serving (custom resources), and everything follows. */
  readonly registry: MutableResourceRegistry;
  readonly caches: CacheSet;
  /** Pass to `createServer` so `/metrics` shows the store, cache and compaction metrics too. */
  readonly metrics: ApiserverMetrics;
  storageFor(type: ResourceType): ObjectStorage;
  /** Mounts discovery, OpenAPI and the resource API after the handler chain. */
  /** `listening.externalAddress`: `/api`'s address once the server listens (absent: the request's local address). */
  routes(app: express.Application, listening?: { readonly externalAddress: () => string }): MountedRoutes;
  readonly health: HealthOptions;
  /** API Priority and Fairness for the HTTPS server's chain; absent with `--enable-priority-and-fairness=false`. */
  readonly flowControl?: FlowControl;
  /** Upgrade requests a route switches itself (the aggregator's proxy, exec, attach, portforward, the proxies): give it to the HTTPS server (`upgrades`). */
  readonly upgrades: (request: IncomingMessage) => boolean;
  /** The one authorizer: give it to the HTTPS server's chain too. */
  readonly authorizer: Authorizer;
  /** The admission chain every write runs through (RBAC's escalation checks, then the enabled plugins). */
  readonly admission: Admission;
  /**
   * After the server listens: bootstrap objects, then campaign for the controllers.
   * `controllers` run on the leader next to the plane's own (authentication's, for one).
   */
  start(listening: {
    readonly advertiseAddress: string;
    readonly port: number;
    readonly controllers?: readonly LeaderController[];
  }): Promise<void>;
  /** As shutdown begins, before requests drain: this replica leaves the `kubernetes` Endpoints, as the reference's pre-shutdown hook takes it out. */
  beginShutdown(): Promise<void>;
  stop(): Promise<void>;
}

/** A controller that runs while this replica leads; it stops when `lost` aborts. */
export type LeaderController = (operations: ObjectOperations, lost: AbortSignal) => void;

function keyPrefixOf(options: ServerOptions, type: ResourceType): string {
  return `${options.etcdPrefix.replace(/\/+$/, '')}/${type.storagePrefix}`;
}

/**
 * The stored resource a key (or a key prefix) belongs to, custom resources included, for
 * encryption at rest: the resource whose prefix is the key's longest parent path. Kinds that
 * share storage (both Events) are the core group's, which is how the configuration names them.
 */
function storedResourceOfKey(
  options: ServerOptions,
  registry: MutableResourceRegistry,
): (key: string) => GroupResource | undefined {
  let byPrefix: Map<string, GroupResource> | undefined;
  registry.onChange(() => (byPrefix = undefined));
  const prefixes = () => {
    const map = new Map<string, GroupResource>();
    for (const type of registry.all()) {
      const keyPrefix = keyPrefixOf(options, type);
      if (!type.virtual && (!map.has(keyPrefix) || type.group === ''))
        map.set(keyPrefix, { group: type.group, resource: type.resource });
    }
    return map;
  };
  return (key) => {
    byPrefix ??= prefixes();
    for (let end = key.lastIndexOf('/'); end > 0; end = key.lastIndexOf('/', end - 1)) {
      const found = byPrefix.get(key.slice(0, end));
      if (found !== undefined) return found;
    }
    return undefined;
  };
}

/**
 * The built-in group-resources `--watch-cache-sizes` (with the reference's defaults) serves
 * straight from the store; custom resources always have a cache, as in the reference (none can
 * share a built-in's group and resource). By name, not by object: the registry serves copies of
 * the built-in types bound to its gates. Worked out once per options: admission plugins ask for
 * storage on every request.
 */
function uncachedTypes(options: ServerOptions): ReadonlySet<string> {
  let types = UNCACHED_TYPES.get(options);
  if (types === undefined) {
    types = new Set(
      BUILTIN_TYPES.filter((type) => watchCacheDisabled(options.watchCacheSizes, type.group, type.resource)).map(
        groupResourceOf,
      ),
    );
    UNCACHED_TYPES.set(options, types);
  }
  return types;
}

const UNCACHED_TYPES = new WeakMap<ServerOptions, ReadonlySet<string>>();

function groupResourceOf(type: ResourceType): string {
  return `${type.group}/${type.resource}`;
}

function uncached(options: ServerOptions, type: ResourceType): boolean {
  return uncachedTypes(options).has(groupResourceOf(type));
}

/** Events (core/v1 and events.k8s.io/v1, one storage) expire `--event-ttl` after their last write, as in the reference. */
function ttlSecondsOf(options: ServerOptions, type: ResourceType): number | undefined {
  const isEvent = type.resource === 'events' && (type.group === '' || type.group === 'events.k8s.io');
  return isEvent && options.eventTtlSeconds > 0 ? options.eventTtlSeconds : undefined;
}

/**
 * One cached resource per storage prefix: kinds that share storage (Events) share a cache, and
 * virtual kinds (reviews) store nothing, nor do kinds `--watch-cache-sizes` leaves uncached.
 * Keyed by key prefix.
 */
function cachedResources(options: ServerOptions, types: readonly ResourceType[]): Map<string, CachedResource> {
  const byPrefix = new Map<string, CachedResource>();
  for (const type of types) {
    if (type.virtual || uncached(options, type)) continue;
    const keyPrefix = keyPrefixOf(options, type);
    if (!byPrefix.has(keyPrefix)) {
      byPrefix.set(keyPrefix, {
        keyPrefix,
        qualifiedResource: { group: type.group, resource: type.resource },
        namespaced: type.namespaced,
        codec: storageValueCodec(type, options.storageMediaType),
        ttlSeconds: ttlSecondsOf(options, type),
      });
    }
  }
  return byPrefix;
}

/**
 * Keeps one watch cache (and its metrics) per stored prefix of the registry's types, adding and
 * removing caches as types come and go. Runs synchronously inside the registry's change, so a
 * type's cache exists before any request can reach it, and a removed type's watches end with it.
 */
function followRegistry(options: {
  serverOptions: ServerOptions;
  registry: MutableResourceRegistry;
  caches: CacheSet;
  /** Mutated: the resource each cached prefix holds, which the store metrics name. */
  storedResources: Map<string, StoredResource>;
  /** Mutated: the caches the watch cache metrics read. */
  observed: Map<string, ObservedCache>;
}): void {
  const { serverOptions, registry, caches, storedResources, observed } = options;
  const track = (resource: CachedResource, cache: WatchCache) => {
    storedResources.set(resource.keyPrefix, resource.qualifiedResource);
    observed.set(resource.keyPrefix, { ...resource.qualifiedResource, cache });
  };
  for (const resource of cachedResources(serverOptions, registry.all()).values())
    track(resource, caches.cacheFor(resource.keyPrefix));
  registry.onChange(() => {
    const wanted = cachedResources(serverOptions, registry.all());
    for (const [keyPrefix, resource] of wanted) {
      if (!caches.has(keyPrefix)) track(resource, caches.add(resource));
    }
    for (const keyPrefix of [...storedResources.keys()]) {
      if (wanted.has(keyPrefix)) continue;
      caches.remove(keyPrefix);
      storedResources.delete(keyPrefix);
      observed.delete(keyPrefix);
    }
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** True once every watch cache is ready; false if `abandoned` fires first. */
async function cachesReadyUnless(caches: CacheSet, abandoned: AbortSignal): Promise<boolean> {
  while (!abandoned.aborted) {
    if (await caches.whenReady(CACHE_READY_POLL_MS)) return !abandoned.aborted;
  }
  return false;
}

export async function startControlPlane(options: ServerOptions): Promise<ControlPlane> {
  setClusterPolicy({ allowPrivileged: options.allowPrivileged });
  const metrics = createApiserverMetrics();
  const declarativeMismatches = registerDeclarativeValidationMetrics(metrics.registry);
  const registry = builtinRegistry({
    enabled: runtimeConfigEnabled({
      config: options.runtimeConfig,
      registered: REGISTERED_GROUP_VERSIONS,
      priorityAndFairness: options.enablePriorityAndFairness,
    }),
    featureEnabled: featureGateReader(options.featureGates),
  });
  const storedResources = new Map<string, StoredResource>();
  // Before the stores open: a configuration refused leaves nothing to close.
  // Loaded only when configured: its modules (the configuration, the providers, KMS) are a
  // start's cost otherwise.
  const encryption = options.encryptionProviderConfig
    ? await (
        await import('./encryption/encryption-at-rest')
      ).startEncryptionAtRest({
        path: options.encryptionProviderConfig,
        automaticReload: options.encryptionProviderConfigAutomaticReload,
        registry: metrics.registry,
        serverId: `${hostname()}_${process.pid}`,
        kmsV1Enabled: featureEnabled(options.featureGates, 'KMSv1'),
      })
    : undefined;
  const locations = await openStoreLocations(options);
  await moveOldKeyPrefixes(locations.main.store, options.etcdPrefix);
  const resourceOfKey = storedResourceOfKey(options, registry);
  // Encryption outside the metrics' wrapper: etcd_request_duration_seconds times the store alone.
  const instrumented = (location: StoreLocation) => {
    const store = instrumentStore({
      store: location.store,
      metrics,
      resourceOfKey: resourceByKeyPrefix(storedResources),
    });
    return encryption === undefined ? store : encryption.wrap(store, resourceOfKey);
  };
  // The main store first: what is not overridden (custom resources included) lives there.
  const stores = [instrumented(locations.main), ...locations.overrides.map(instrumented)];
  const [store] = stores;
  const startupResources = [...cachedResources(options, registry.all()).values()];
  // Overrides name built-in resources only, all known at start.
  const storeIndexOfPrefix = new Map<string, number>();
  // By key prefix, uncached types included: kinds sharing a prefix (core and events.k8s.io
  // Events) share the store the override names for either.
  for (const type of registry.all()) {
    if (type.virtual) continue;
    const location = locations.locationOf({ group: type.group, resource: type.resource });
    if (location !== locations.main)
      storeIndexOfPrefix.set(keyPrefixOf(options, type), 1 + locations.overrides.indexOf(location));
  }
  const storeIndexOf = (keyPrefix: string) => storeIndexOfPrefix.get(keyPrefix) ?? 0;
  const cacheSets = await Promise.all(
    stores.map((located, index) =>
      startCacheSet({
        store: located,
        resources: startupResources.filter(({ keyPrefix }) => storeIndexOf(keyPrefix) === index),
      }),
    ),
  );
  const caches = routedCacheSet({ sets: cacheSets, setOf: storeIndexOf });
  const observed = new Map<string, ObservedCache>();
  followRegistry({ serverOptions: options, registry, caches, storedResources, observed });
  observeWatchCaches(metrics, () => observed.values());
  // Types without a watch cache read and watch their store itself, one object layer per stored
  // group-resource (both Events share a prefix, and each names itself in its messages).
  const uncachedStorage = new Map<string, ObjectStorage>();
  // Where a type is stored and whether it has a cache, worked out once per type: admission
  // plugins ask for storage several times a request.
  const placements = new WeakMap<ResourceType, { readonly keyPrefix: string; readonly cached: boolean }>();
  const storageFor = (type: ResourceType): ObjectStorage => {
    let placement = placements.get(type);
    if (placement === undefined) {
      placement = { keyPrefix: keyPrefixOf(options, type), cached: !uncached(options, type) };
      placements.set(type, placement);
    }
    const { keyPrefix } = placement;
    if (placement.cached) return caches.cacheFor(keyPrefix);
    const key = `${keyPrefix}\u0000${type.group}`;
    let storage = uncachedStorage.get(key);
    if (storage === undefined) {
      storage = new ResourceStore({
        store: stores[storeIndexOf(keyPrefix)],
        keyPrefix,
        qualifiedResource: { group: type.group, resource: type.resource },
        namespaced: type.namespaced,
        codec: storageValueCodec(type, options.storageMediaType),
        ttlSeconds: ttlSecondsOf(options, type),
      });
      uncachedStorage.set(key, storage);
    }
    return storage;
  };
  // Each etcd compacts its own history, as the reference runs a compactor per storage location.
  const compactors = stores.map(
    (located) =>
      new Compactor({
        store: located,
        intervalMs: options.etcdCompactionIntervalMs,
        onCompacted: recordCompactions(metrics),
      }),
  );
  for (const compactor of compactors) compactor.start();

  const find = (group: string, resource: string): ResourceType => {
    const type = registry.find({ group, version: 'v1' }, resource);
    if (!type) throw new Error(`${group}/v1 ${resource} is not served`);
    return type;
  };
  const allocator = new ClusterIPAllocator({
    reservations: ipAddressReservations(storageFor(find('networking.k8s.io', 'ipaddresses'))),
    ranges: serviceIPRangesOf(options),
  });
  const authorization = configureAuthorization(options, (group, resource) => storageFor(find(group, resource)));
  // One resolver for webhooks and the aggregator, as the reference has.
  const serviceRoutes = serviceResolver(
    (group, resource) => storageFor(find(group, resource)),
    options.enableAggregatorRouting,
  );
  const { authorizer } = authorization;
  const admissionPlugins = selectAdmissionPlugins(
    { enable: options.enableAdmissionPlugins, disable: options.disableAdmissionPlugins },
    {
      // Resolved per request: plugins read other kinds' caches by group and resource.
      storageOf: (group, resource) => storageFor(find(group, resource)),
      services: serviceRoutes,
      tolerationSeconds: {
        notReady: options.defaultNotReadyTolerationSeconds,
        unreachable: options.defaultUnreachableTolerationSeconds,
      },
      authorizer,
      featureEnabled: featureGateReader(options.featureGates),
      pluginConfigurations: options.admissionControlConfigFile
        ? readAdmissionConfiguration(options.admissionControlConfigFile)
        : NO_PLUGIN_CONFIGURATIONS,
      paramKinds: (gvk) => {
        const type = registry.findKind(gvk);
        return type && { type, storage: storageFor(type) };
      },
      servedType: (resource) => registry.find(resource, resource.resource),
      // Through the store's whole create, as the reference's plugin creates it with its loopback
      // client; `operations`, made from the chain these plugins join, exists before any request.
      createNamespace: (name) =>
        operations.createObject(find('', 'namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
      servedKind: (gvk) => registry.findKind(gvk),
    },
  );
  for (const review of accessReviewKinds(authorizer)) registry.addBuiltIn(review);
  const admission = admissionChain([
    rbacEscalationPrevention(authorization.ruleResolver, authorizer),
    ...admissionPlugins.plugins,
  ]);
  const services = find('', 'services');
  // Where the reference keeps its node port bitmap, beside the Services.
  const nodePortBitmap = new SharedPortBitmap({
    store: stores[storeIndexOf(keyPrefixOf(options, services))],
    key: `${options.etcdPrefix.replace(/\/+$/, '')}/ranges/servicenodeports`,
    range: options.serviceNodePortRange,
  });
  const serviceHooks = serviceAllocationHooks({
    clusterIPs: allocator,
    nodePorts: new ServiceNodePorts(nodePortBitmap),
    services: storageFor(services),
    endpoints: storageFor(find('', 'endpoints')),
  });
  const nodePortRepairStop = new AbortController();
  /** Ends the keeping of the system namespaces and the kubernetes Service. */
  const bootstrapKeeperStop = new AbortController();
  const namespaces = storageFor(find('', 'namespaces'));
  const kindHooks = new Map<string, StoreHooks>([
    ['/services', serviceHooks],
    ['resource.k8s.io/resourceclaims', deviceAdminAccessHooks({ kind: 'ResourceClaim', namespaces })],
    ['resource.k8s.io/resourceclaimtemplates', deviceAdminAccessHooks({ kind: 'ResourceClaimTemplate', namespaces })],
    ['certificates.k8s.io/podcertificaterequests', podCertificateSigningHooks(authorizer)],
    ...admissionPolicyParamHooks({ authorizer, registry, storageFor }),
  ]);
  const hooksFor = (type: ResourceType): StoreHooks | undefined => kindHooks.get(`${type.group}/${type.resource}`);
  const definitions = schemaData().definitions;
  // The gates as the flags set them: a controller's write keeps the gated fields a client's would.
  const context: StoreContext = {
    registry,
    definitions,
    now: () => new Date(),
    admission,
    hooksFor,
    featureGates: options.featureGates,
    declarativeMismatches,
  };
  const operations = apiOperations({ context, storageFor });
  // Every replica serves the established CRDs' types, leader or not; the stored ones before it answers.
  const crdServing = startCRDServing({
    crds: storageFor(find('apiextensions.k8s.io', 'customresourcedefinitions')),
    registry,
    services: serviceRoutes,
  });
  await crdServing.synced;
  const answers = (located: RevisionedStore, timeoutMs: number) => async () =>
    void (await withTimeout(located.currentRevision(), timeoutMs, 'the store'));
  const storeAnswers = answers(store, options.etcdHealthcheckTimeoutMs);
  const storeReady = answers(store, options.etcdReadycheckTimeoutMs);
  // Named as the reference names its checks of the override locations.
  const overrideChecks = stores.slice(1).map((located, i) => ({
    live: functionCheck(`etcd-override-${i}`, answers(located, options.etcdHealthcheckTimeoutMs)),
    ready: functionCheck(`etcd-override-readiness-${i}`, answers(located, options.etcdReadycheckTimeoutMs)),
  }));
  registry.addBuiltIn(componentStatusKind(defaultComponents(storeAnswers)));
  const kubelet = createKubeletClient(options.kubelet);
  const aggregator = startAggregator({
    registry,
    storageOf: (group, resource) => storageFor(find(group, resource)),
    services: serviceRoutes,
    rejectRedirects: options.aggregatorRejectForwardingRedirect,
    operations,
    clientCertificate: readProxyClientCertificate(options),
    metrics,
  });

  // API Priority and Fairness shares the two in-flight limits among its priority levels.
  let flowControl: FlowControl | undefined;
  let flowConfig: ConfigConsumer | undefined;
  if (options.enablePriorityAndFairness) {
    const serverConcurrencyLimit = Math.max(1, options.maxRequestsInflight + options.maxMutatingRequestsInflight);
    flowControl = new FlowControl({
      serverConcurrencyLimit,
      registry: metrics.registry,
      showHiddenMetrics: options.showHiddenMetricsForVersion !== undefined,
    });
    flowConfig = startConfigConsumer(flowControl, {
      schemas: storageFor(find('flowcontrol.apiserver.k8s.io', 'flowschemas')),
      levels: storageFor(find('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations')),
    });
  }

  // Post-start hooks, named and ordered as the reference's for the work capstan does.
  const hook = (name: string, finished = false): PostStartHook => {
    const created = new PostStartHook(name);
    if (finished) created.finish();
    return created;
  };
  const crdSyncedHooks = [
    hook('start-apiextensions-informers', true),
    hook('start-apiextensions-controllers', true),
    hook('crd-informer-synced', true),
  ];
  const flowHooks =
    flowControl === undefined
      ? undefined
      : {
          consumer: hook('priority-and-fairness-config-consumer'),
          filter: hook('priority-and-fairness-filter', true),
          producer: hook('priority-and-fairness-config-producer'),
        };
  void flowConfig?.synced.then(() => flowHooks?.consumer.finish());
  const namespacesHook = hook('start-system-namespaces-controller');
  // The publisher of extension-apiserver-authentication runs on the leader; as the repair below,
  // the hook says this replica has put it up for election.
  const authenticationInfoHook = hook('start-cluster-authentication-info-controller');
  // The repair runs on the leader; the hook says this replica has put it up for election.
  const serviceIPRepairHook = hook('start-service-ip-repair-controllers');
  const serviceCIDRHook = hook('start-kubernetes-service-cidr-controller');
  const bootstrapHook = hook('bootstrap-controller');
  // Hooks that finish as their controllers start, as the reference's do.
  const identityLeaseHooks = featureEnabled(options.featureGates, 'APIServerIdentity')
    ? [
        hook('start-kube-apiserver-identity-lease-controller'),
        hook('start-kube-apiserver-identity-lease-garbage-collector'),
      ]
    : [];
  const identityLeaseStop = new AbortController();
  // With both gates the reference publishes its storage versions and holds writes until then;
  // capstan does so while it serves the StorageVersion kind to publish them in.
  const storageVersionKind = registry.find(
    { group: 'internal.apiserver.k8s.io', version: 'v1alpha1' },
    'storageversions',
  );
  const storageVersionHook =
    identityLeaseHooks.length > 0 &&
    featureEnabled(options.featureGates, 'StorageVersionAPI') &&
    storageVersionKind !== undefined
      ? hook('built-in-resources-storage-version-updater')
      : undefined;
  let storageVersionPublisher: StorageVersionPublisher | undefined;
  if (storageVersionHook && storageVersionKind) {
    storageVersionPublisher = startStorageVersionPublisher(operations, {
      storageVersions: storageVersionKind,
      leases: find('coordination.k8s.io', 'leases'),
      serverId: apiserverIdentity(hostname()),
      resources: publishedResources(registry.all(), BUILTIN_TYPES),
      stop: identityLeaseStop.signal,
    });
    void storageVersionPublisher.completed.then(() => storageVersionHook.finish());
  }
  // Started as the reference's: its own leader lease whenever the gate is on.
  const coordinatedElectionHook = featureEnabled(options.featureGates, 'CoordinatedLeaderElection')
    ? hook('start-kube-apiserver-coordinated-leader-election-controller')
    : undefined;
  const rbacHook = hook('rbac/bootstrap-roles');
  const priorityClassesHook = hook('scheduling/bootstrap-system-priority-classes');
  const postStartHooks = [
    hook('start-apiserver-admission-initializer', true),
    hook('generic-apiserver-start-informers', true),
    ...(options.encryptionProviderConfigAutomaticReload
      ? [hook('start-encryption-provider-config-automatic-reload', true)]
      : []),
    ...(flowHooks ? [flowHooks.consumer, flowHooks.filter] : []),
    ...crdSyncedHooks,
    namespacesHook,
    ...(coordinatedElectionHook ? [coordinatedElectionHook] : []),
    authenticationInfoHook,
    ...identityLeaseHooks,
    ...(storageVersionHook ? [storageVersionHook] : []),
    serviceIPRepairHook,
    rbacHook,
    priorityClassesHook,
    ...(flowHooks ? [flowHooks.producer] : []),
    bootstrapHook,
    serviceCIDRHook,
    ...aggregator.healthChecks,
  ];
  let election: LeaderElection | undefined;
  let coordinatedElection: LeaderElection | undefined;
  let endpointLeases: EndpointLeaseReconciler | undefined;

  return {
    store,
    registry,
    caches,
    metrics,
    storageFor,
    authorizer,
    admission,
    flowControl,
    upgrades: (request) => aggregator.upgrades(request) || isConnectUpgrade(request) || isWatchUpgrade(request),
    routes(app, listening) {
      if (storageVersionPublisher) app.use(withStorageVersionPrecondition(storageVersionPublisher));
      app.use(aggregator.proxy);
      const discovery = mountDiscovery(app, {
        registry,
        serverAddress: listening?.externalAddress,
        extensions: aggregator.extensions,
        featureEnabled: featureGateReader(options.featureGates),
      });
      mountOpenAPI(app, {
        registry,
        extensions: aggregator.openapi,
        featureEnabled: featureGateReader(options.featureGates),
      });
      mountResourceRoutes(app as express.Express, {
        registry,
        storageFor,
        definitions,
        admission,
        hooksFor,
        representations: representationSettingsFrom(options.featureGates),
        authorizer,
        featureGates: options.featureGates,
        etcdPrefix: options.etcdPrefix,
        kubelet,
        minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
        declarativeMismatches,
      });
      return {
        notFoundAsStatus: discovery.notFoundAsStatus,
        listedPaths: () => [...discovery.listedPaths(), ...OPENAPI_LISTED_PATHS],
      };
    },
    health: {
      checks: [functionCheck('etcd', storeAnswers), ...overrideChecks.map(({ live }) => live)],
      nonLivenessChecks: encryption?.healthChecks,
      readinessChecks: [
        functionCheck('etcd-readiness', storeReady),
        ...overrideChecks.map(({ ready }) => ready),
        // The caches made at start only: a type added while serving (a custom resource) lists
        // on its own meanwhile (its reads go to the store), and must not take the replica out.
        functionCheck('informer-sync', async () => {
          const started = startupResources.filter(({ keyPrefix }) => caches.has(keyPrefix));
          const ready = await Promise.all(started.map(({ keyPrefix }) => caches.cacheFor(keyPrefix).whenReady(0)));
          if (!ready.every(Boolean)) throw new Error('watch caches are not synced');
        }),
      ],
      postStartHooks,
    },
    async start({ advertiseAddress, port, controllers = [] }) {
      // Every replica repairs the node port bitmap, as every reference server does; the hook
      // (and so readiness) waits for its first pass, as the reference's does. It needs nothing
      // the bootstrap writes, so it runs beside them.
      void startNodePortRepair({
        services: storageFor(services),
        bitmap: nodePortBitmap,
        stop: nodePortRepairStop.signal,
      }).then(() => serviceIPRepairHook.finish());
      await keepSystemNamespaces(operations, {
        intervalMs: SYSTEM_NAMESPACES_INTERVAL_MS,
        stop: bootstrapKeeperStop.signal,
      });
      namespacesHook.finish();
      if (coordinatedElectionHook) {
        coordinatedElection = startLeaderElection({
          leases: storageFor(find('coordination.k8s.io', 'leases')),
          namespace: 'kube-system',
          name: COORDINATED_ELECTION_LEASE,
          identity: `${hostname()}_${randomUUID()}`,
          // Whole seconds, as client-go writes the lease's duration.
          leaseDurationSeconds: Math.trunc(options.coordinatedLeadership.leaseDurationMs / 1000),
          renewDeadlineMs: options.coordinatedLeadership.renewDeadlineMs,
          retryPeriodMs: options.coordinatedLeadership.retryPeriodMs,
          onStartedLeading: (lost) => {
            // The reference's controller reads v1beta1 LeaseCandidates: unserved, it has nothing to read.
            const candidates = registry.find({ group: 'coordination.k8s.io', version: 'v1beta1' }, 'leasecandidates');
            if (candidates === undefined) return;
            startCoordinatedLeaderElection(operations, {
              leases: find('coordination.k8s.io', 'leases'),
              candidates,
              stop: lost,
            });
          },
        });
        coordinatedElectionHook.finish();
      }
      if (identityLeaseHooks.length > 0) {
        startIdentityLease(operations, {
          leases: find('coordination.k8s.io', 'leases'),
          hostname: hostname(),
          stop: identityLeaseStop.signal,
        });
        for (const started of identityLeaseHooks) started.finish();
      }
      // The rest is independent, as the reference's post-start hooks run side by side: each
      // finishes its own hook, and /healthz waits for them all.
      const endpoints = find('', 'endpoints');
      const serviceCIDRs = [
        allocator.ranges.primary.cidr,
        ...(allocator.ranges.secondary ? [allocator.ranges.secondary.cidr] : []),
      ];
      await Promise.all([
        (async () => {
          await keepKubernetesService(
            operations,
            {
              kubernetesServiceIP: allocator.firstAddress(),
              securePort: port,
              nodePort: options.kubernetesServiceNodePort,
            },
            { intervalMs: KUBERNETES_SERVICE_INTERVAL_MS, stop: bootstrapKeeperStop.signal },
          );
          if (options.endpointReconcilerType === 'lease') {
            endpointLeases = await startEndpointLeaseReconciler(operations, {
              // Where the reference keeps them, as Endpoints objects encoded as it encodes Endpoints.
              leases: new ResourceStore({
                store: stores[storeIndexOf(keyPrefixOf(options, endpoints))],
                keyPrefix: `${options.etcdPrefix.replace(/\/+$/, '')}/masterleases`,
                qualifiedResource: { group: '', resource: 'endpoints' },
                namespaced: false,
                codec: storageValueCodec(endpoints, options.storageMediaType),
                ttlSeconds: MASTER_LEASE_TTL_SECONDS,
              }),
              endpoints,
              endpointSlices: registry.find({ group: 'discovery.k8s.io', version: 'v1' }, 'endpointslices'),
              advertiseAddress,
              securePort: port,
            });
          }
          bootstrapHook.finish();
        })(),
        (async () => {
          await createSystemPriorityClasses(operations);
          priorityClassesHook.finish();
        })(),
        (async () => {
          await ensureDefaultServiceCIDR(operations, serviceCIDRs, new Date());
          serviceCIDRHook.finish();
        })(),
        (async () => {
          await reconcileBootstrapPolicy(operations, featureGateReader(options.featureGates));
          await authorization.rbacSynced;
          rbacHook.finish();
        })(),
        flowHooks &&
          (async () => {
            await ensureBootstrapConfiguration(
              apiOperations({ context, storageFor, manager: 'api-priority-and-fairness-config-producer-v1' }),
            );
            flowHooks.producer.finish();
          })(),
      ]);
      election = startLeaderElection({
        leases: storageFor(find('coordination.k8s.io', 'leases')),
        namespace: 'kube-system',
        name: CONTROLLERS_LEASE,
        identity: `${hostname()}_${randomUUID()}`,
        onStartedLeading: (lost) => {
          // Their informers list from the watch caches: started before those are ready, they
          // would read every object from the store a second time, unpaged, while the caches do.
          void cachesReadyUnless(caches, lost).then((ready) => {
            if (!ready) return;
            const runs = (name: EmbeddedController) => controllerEnabled(options.controllers, name);
            if (runs('namespace-controller')) startNamespaceController(operations, lost);
            if (runs('resourcequota-controller')) startQuotaController(operations, lost);
            if (runs('persistentvolumeclaim-protection-controller') && runs('persistentvolume-protection-controller'))
              startStorageProtection(operations, lost);
            if (
              runs('volumeattributesclass-protection-controller') &&
              featureEnabled(options.featureGates, 'VolumeAttributesClass')
            )
              startVolumeAttributesClassProtection(operations, lost);
            if (runs('persistentvolume-binder-controller')) startVolumeBinder(operations, lost);
            if (runs('garbage-collector-controller')) startGarbageCollector(operations, lost);
            if (
              runs('storage-version-migrator-controller') &&
              runs('garbage-collector-controller') &&
              featureEnabled(options.featureGates, 'StorageVersionMigrator')
            )
              startStorageVersionMigrator(operations, lost);
            startServiceIPRepair(operations, allocator, lost);
            if (runs('clusterrole-aggregation-controller')) startClusterRoleAggregation(operations, lost);
            startCRDController(operations, lost, {
              establishingDelayMs: options.apiserverCount > 1 ? HA_ESTABLISHING_DELAY_MS : 0,
            });
            if (runs('validatingadmissionpolicy-status-controller'))
              startPolicyTypeChecking(operations, definitions, lost);
            if (flowControl)
              startDanglingConditions(
                apiOperations({ context, storageFor, manager: 'api-priority-and-fairness-config-consumer-v1' }),
                lost,
              );
            for (const controller of controllers) controller(operations, lost);
          });
        },
      });
      authenticationInfoHook.finish();
    },
    async beginShutdown() {
      await endpointLeases?.stop();
      endpointLeases = undefined;
    },
    async stop() {
      // Not left already (beginShutdown): leave now, but let nothing here keep the stores open.
      await endpointLeases
        ?.stop()
        .catch((error: unknown) => console.error('leaving the kubernetes Endpoints failed:', error));
      nodePortRepairStop.abort();
      bootstrapKeeperStop.abort();
      identityLeaseStop.abort();
      await Promise.all([election?.stop(), coordinatedElection?.stop()]);
      authorization.stop();
      flowConfig?.stop();
      crdServing.stop();
      aggregator.stop();
      await Promise.all(compactors.map((compactor) => compactor.stop()));
      caches.stop();
      encryption?.stop();
      await Promise.all(stores.map((located) => located.close()));
    },
  };
}
