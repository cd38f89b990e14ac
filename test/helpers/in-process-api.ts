/**
 * The resource API in-process over plain HTTP, for handler-level tests: one `ResourceStore` per
 * stored resource on a real SQLite file in a temp dir, then the request-info stage, the real
 * built-in registry and schema data, the resource routes and the chain's error handlers. No TLS,
 * authentication or watch caches: tests that need those start the whole server
 * (test/helpers/server.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import type { Admission } from '../../server/admission/types';
import type { RepresentationSettings } from '../../server/codec/representation-settings';
import { resourceRoutes } from '../../server/handlers/routes';
import { withWarningRecorder } from '../../server/http/with-warning-recorder';
import type { StoreHooks } from '../../server/registry/store/hooks';
import { notFoundHandler, statusErrorHandler } from '../../server/http/errors';
import { withRequestInfo } from '../../server/http/with-request-info';
import type { ResourceRegistry, ResourceType } from '../../server/registry/types';
import { schemaData } from '../../server/schema/definitions';
import { ResourceStore } from '../../storage/objects/resource-store';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../storage/store';
import { ClusterIPAllocator, ipAddressReservations } from '../../server/registry/allocators/cluster-ip';
import { ServiceNodePorts } from '../../server/registry/allocators/node-ports';
import { SharedPortBitmap } from '../../server/registry/allocators/port-bitmap';
import { DEFAULT_NODE_PORT_RANGE, parsePortRange } from '../../server/config/port-range';
import { parseServiceIPRanges } from '../../server/net/service-ip-ranges';
import { serviceAllocationHooks } from '../../server/registry/allocators/service-hooks';
import { BUILTIN_TYPES, builtinRegistry } from '../../server/builtin-types';
import { ResourceTypeRegistry } from '../../server/registry/registry';

export interface TestStore {
  readonly store: RevisionedStore;
  /** One ResourceStore per type, made on first use. */
  storageFor(type: ResourceType): ResourceStore;
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-api-'));
  const store = await openSqliteStore({ path: join(dir, 'state.db') });
  const storages = new Map<ResourceType, ResourceStore>();
  return {
    store,
    storageFor(type) {
      let storage = storages.get(type);
      if (storage === undefined) {
        const qualifiedResource = { group: type.group, resource: type.resource };
        storage = new ResourceStore({
          store,
          keyPrefix: `/registry/${type.storagePrefix}`,
          qualifiedResource,
          namespaced: type.namespaced,
        });
        storages.set(type, storage);
      }
      return storage;
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The Service store's hooks as a replica has them (kubeadm's 10.96.0.0/12, the default node
 * ports, an empty node port bitmap written first), for `serveResourceApi`'s `hooksFor`.
 */
export async function serviceHooksFor(testStore: TestStore): Promise<(type: ResourceType) => StoreHooks | undefined> {
  const registry = builtinRegistry();
  const services = registry.find({ group: '', version: 'v1' }, 'services')!;
  const ipAddresses = registry.find({ group: 'networking.k8s.io', version: 'v1' }, 'ipaddresses')!;
  const clusterIPs = new ClusterIPAllocator({
    reservations: ipAddressReservations(testStore.storageFor(ipAddresses)),
    ranges: parseServiceIPRanges('10.96.0.0/12', { limitSize: false }),
  });
  const bitmap = new SharedPortBitmap({
    store: testStore.store,
    key: '/registry/ranges/servicenodeports',
    range: parsePortRange(DEFAULT_NODE_PORT_RANGE),
  });
  await bitmap.write(bitmap.empty(), 0);
  const hooks = serviceAllocationHooks({
    clusterIPs,
    nodePorts: new ServiceNodePorts(bitmap),
    services: testStore.storageFor(services),
  });
  return (type) => (type.group === '' && type.resource === 'services' ? hooks : undefined);
}

export interface ServedApi {
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  readonly port: number;
  close(): Promise<void>;
}

/** One request to a served API with a JSON body (of `contentType`), and its status and JSON answer. */
export async function callJson(
  api: ServedApi,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: any }> {
  const response = await fetch(api.base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': contentType },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

export async function serveResourceApi(
  storageFor: (type: ResourceType) => ResourceStore,
  options: {
    readonly representations?: RepresentationSettings;
    readonly admission?: Admission;
    readonly hooksFor?: (type: ResourceType) => StoreHooks | undefined;
    readonly registry?: ResourceRegistry;
    /** As `--feature-gates` sets them; absent: every gate at its default. */
    readonly featureGates?: Readonly<Record<string, boolean>>;
  } = {},
): Promise<ServedApi> {
  const app = express();
  const registry = options.registry ?? builtinRegistry();
  app.use(withRequestInfo(), withWarningRecorder());
  app.use(
    resourceRoutes({
      registry,
      storageFor,
      definitions: schemaData().definitions,
      representations: options.representations,
      admission: options.admission,
      hooksFor: options.hooksFor,
      featureGates: options.featureGates,
    }),
  );
  // Below a served group an unknown path is a NotFound Status, as the server mounts it.
  app.use(notFoundHandler((group) => registry.all().some((type) => type.group === group)));
  app.use(statusErrorHandler());
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * The built-in kinds and `types` (custom resources) served over a fresh test store; closing the
 * API closes the store too.
 */
export async function serveTypesOnTestStore(types: readonly ResourceType[]): Promise<ServedApi> {
  const testStore = await openTestStore();
  const api = await serveResourceApi(testStore.storageFor, {
    registry: new ResourceTypeRegistry({ types: [...BUILTIN_TYPES, ...types] }),
  });
  return {
    ...api,
    close: async () => {
      await api.close();
      await testStore.close();
    },
  };
}
