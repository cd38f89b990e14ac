/**
 * The aggregation layer, put together: one informer on APIServices feeds autoregistration (a
 * local APIService per served group-version), the availability controller (the Available
 * condition), discovery and OpenAPI of the extension servers, and the proxy. Every replica runs all of it,
 * as every reference kube-apiserver does. Its health checks carry the reference's names and
 * pass once the part they name has done its first pass.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { StorageOf } from '../admission/lookup';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import type { ExtensionGroups } from '../discovery/extension-groups';
import { functionCheck, PostStartHook, type HealthCheck } from '../health/checks';
import type { ResourceRegistry, ResourceType } from '../registry/types';
import type { KubeObject } from '../../api/objects';
import { APIREGISTRATION_GROUP, serviceOf } from '../../api/apiregistration';
import { startAutoregistration } from './autoregistration';
import { startAvailabilityController } from './availability';
import { availabilityMetrics } from './availability-metrics';
import type { ApiserverMetrics } from '../metrics/apiserver-metrics';
import { ExtensionDiscovery } from './extension-discovery';
import { ExtensionOpenAPIDocuments } from './extension-openapi';
import type { ExtensionOpenAPI } from '../openapi/extension-documents';
import type { ProxyClientCertificate } from './extension-transport';
import { aggregatorProxy, isProxied } from './proxy';
import { SERVICE_NAME_LABEL, type ServiceResolver } from '../proxy/service-endpoint';

export interface Aggregator {
  /** Mount before the resource routes: it takes the requests of remote APIServices' group-versions. */
  readonly proxy: RequestHandler;
  /** Whether an upgrade request is the proxy's to switch (`CreateServerOptions.upgrades`). */
  upgrades(request: IncomingMessage): boolean;
  /** For discovery (server/discovery/mount-discovery.ts). */
  readonly extensions: ExtensionGroups;
  /** For the OpenAPI handlers (server/openapi/mount-openapi.ts). */
  readonly openapi: ExtensionOpenAPI;
  /** In the reference's order, to follow the other post-start hooks. */
  readonly healthChecks: readonly HealthCheck[];
  stop(): void;
}

export function startAggregator(options: {
  readonly registry: ResourceRegistry;
  readonly storageOf: StorageOf;
  /** Where the APIServices' Services lead (`--enable-aggregator-routing`). */
  readonly services: ServiceResolver;
  /** `--aggregator-reject-forwarding-redirect`: an extension server's redirect is answered 502, not passed on. */
  readonly rejectRedirects: boolean;
  /** Writes as `kube-apiserver`, as the reference's aggregator controllers do. */
  readonly operations: ObjectOperations;
  readonly clientCertificate: ProxyClientCertificate | undefined;
  /** Where the aggregator's metrics go (`/metrics`). */
  readonly metrics: ApiserverMetrics;
}): Aggregator {
  const { registry, storageOf, services, operations, clientCertificate } = options;
  const type: ResourceType | undefined = registry.find({ group: APIREGISTRATION_GROUP, version: 'v1' }, 'apiservices');
  if (type === undefined) throw new Error(`${APIREGISTRATION_GROUP}/v1 apiservices is not served (--runtime-config?)`);
  const changed = (name: string) => {
    autoregistration.request();
    availability.request(name);
    void discovery.refresh(name);
    void openapi.refresh(name);
  };
  const informer = startInformer(storageOf(APIREGISTRATION_GROUP, 'apiservices'), {
    onUpsert: (object) => changed(String(object.metadata.name)),
    onDelete: (object) => changed(String(object.metadata.name)),
  });
  const current = informer.objects;
  // A Service or its endpoints changing changes the availability of the APIServices behind it at once.
  const serviceChanged = (namespace: string | undefined, name: string | undefined) => {
    for (const [apiServiceName, apiService] of current) {
      const service = serviceOf(apiService);
      if (service !== undefined && service.namespace === namespace && service.name === name) {
        availability.request(apiServiceName);
        void discovery.refresh(apiServiceName);
        void openapi.refresh(apiServiceName);
      }
    }
  };
  const onService = (object: KubeObject) => serviceChanged(object.metadata.namespace, object.metadata.name);
  const onSlice = (object: KubeObject) =>
    serviceChanged(object.metadata.namespace, object.metadata.labels?.[SERVICE_NAME_LABEL]);
  const serviceInformers = [
    startInformer(storageOf('', 'services'), { onUpsert: onService, onDelete: onService }),
    startInformer(storageOf('discovery.k8s.io', 'endpointslices'), { onUpsert: onSlice, onDelete: onSlice }),
  ];
  const discovery = new ExtensionDiscovery({ current, services, clientCertificate });
  const openapi = new ExtensionOpenAPIDocuments({ current, services, clientCertificate });
  const metrics = availabilityMetrics(options.metrics, current);
  const availability = startAvailabilityController({
    current,
    synced: informer.synced,
    services,
    operations,
    type,
    clientCertificate,
    metrics,
  });
  // Reconciling before the informer lists would create what is already stored.
  let autoregistration = { request: () => {}, stop: () => {} };
  const autoregistered = informer.synced.then(() => {
    const started = startAutoregistration({ registry, current, operations, type });
    autoregistration = started;
    return started.completed;
  });

  const hook = (name: string, done: Promise<unknown>): PostStartHook => {
    const created = new PostStartHook(name);
    void done.then(() => created.finish());
    return created;
  };
  let autoregisterComplete = false;
  void autoregistered.then(() => (autoregisterComplete = true));
  const discoverySynced = informer.synced.then(() =>
    Promise.all([...current.keys()].map((name) => discovery.refresh(name))),
  );
  // The first downloads of the extension servers' OpenAPI; nothing waits for them (below).
  void informer.synced.then(() => Promise.all([...current.keys()].map((name) => openapi.refresh(name))));
  const healthChecks: HealthCheck[] = [
    hook('start-kube-aggregator-informers', Promise.all([informer, ...serviceInformers].map(({ synced }) => synced))),
    // The reference's availability and OpenAPI hooks start their controllers and are done: an
    // extension server that does not answer (5 s at most a request) holds up no replica's start.
    hook('apiservice-status-local-available-controller', Promise.resolve()),
    hook('apiservice-status-remote-available-controller', Promise.resolve()),
    hook('apiservice-registration-controller', informer.synced),
    hook('apiservice-discovery-controller', discoverySynced),
    hook('kube-apiserver-autoregistration', informer.synced),
    functionCheck('autoregister-completion', () => {
      if (!autoregisterComplete) throw new Error('missing APIService');
    }),
    hook('apiservice-openapi-controller', Promise.resolve()),
    hook('apiservice-openapiv3-controller', Promise.resolve()),
  ];

  return {
    proxy: aggregatorProxy({ current, services, clientCertificate, rejectRedirects: options.rejectRedirects }),
    upgrades: (request) => isProxied(request, current),
    extensions: discovery,
    openapi,
    healthChecks,
    stop() {
      informer.stop();
      for (const serviceInformer of serviceInformers) serviceInformer.stop();
      availability.stop();
      autoregistration.stop();
      discovery.stop();
      openapi.stop();
    },
  };
}
