/**
 * While the StorageVersions are not yet published, writes to built-in resources are answered
 * 503 with kube-apiserver 1.34.4's words ("wait for storage version registration to complete
 * for resource: configmaps, last seen error: <nil>", from its log while it held its own
 * controllers' writes), as its WithStorageVersionPrecondition filter answers them: resources
 * sharing storage are held together, and reads, StorageVersions, kube-system leases and the
 * server's own namespace creation pass. Once the identity lease exists and every resource is
 * published, nothing is held. Over a real SQLite store, with the server's own operations.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { admissionChain } from '../../../server/admission/types';
import { BUILTIN_TYPES, builtinRegistry } from '../../../server/builtin-types';
import { REGISTERED_GROUP_VERSIONS } from '../../../server/config/registered-group-versions';
import { runtimeConfigEnabled } from '../../../server/config/runtime-config';
import { apiOperations, APISERVER_USER } from '../../../server/client/api-operations';
import {
  publishedResources,
  startStorageVersionPublisher,
} from '../../../server/controllers/storage-version-publisher';
import { statusErrorHandler } from '../../../server/http/errors';
import { withRequestInfo } from '../../../server/http/with-request-info';
import { withStorageVersionPrecondition } from '../../../server/http/with-storage-version-precondition';
import { openTestStore, type TestStore } from '../../helpers/in-process-api';
import { waitUntil } from '../../helpers/wait-for';
import type { UserInfo } from '../../../api/user-info';

const ADMIN: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };

let testStore: TestStore;
let server: Server;
let base: string;
const stop = new AbortController();
const registry = builtinRegistry({
  enabled: runtimeConfigEnabled({
    config: { 'internal.apiserver.k8s.io/v1alpha1': 'true' },
    registered: REGISTERED_GROUP_VERSIONS,
  }),
});
const find = (group: string, version: string, resource: string) => registry.find({ group, version }, resource)!;
const operations = () =>
  apiOperations({
    context: { registry, now: () => new Date(), admission: admissionChain([]) },
    storageFor: (type) => testStore.storageFor(type),
  });

beforeAll(async () => {
  testStore = await openTestStore();
  const publisher = startStorageVersionPublisher(operations(), {
    storageVersions: find('internal.apiserver.k8s.io', 'v1alpha1', 'storageversions'),
    leases: find('coordination.k8s.io', 'v1', 'leases'),
    serverId: 'apiserver-test',
    resources: publishedResources(registry.all(), BUILTIN_TYPES),
    stop: stop.signal,
  });
  const app = express();
  app.use(withRequestInfo());
  app.use((req, _res, next) => {
    req.user = req.headers['x-as-apiserver'] ? APISERVER_USER : ADMIN;
    next();
  });
  app.use(withStorageVersionPrecondition(publisher));
  app.use((_req, res) => res.status(200).end('passed'));
  app.use(statusErrorHandler());
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  stop.abort();
  await new Promise((resolve) => server?.close(resolve));
  await testStore?.close();
});

async function call(method: string, path: string, headers: Record<string, string> = {}) {
  const answer = await fetch(`${base}${path}`, { method, headers });
  return { status: answer.status, body: await answer.text() };
}

it('holds writes to every built-in resource until its StorageVersion is published', async () => {
  const held = await call('POST', '/api/v1/namespaces/default/configmaps');
  expect(held.status).toBe(503);
  expect(JSON.parse(held.body)).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'wait for storage version registration to complete for resource: configmaps, last seen error: <nil>',
    reason: 'ServiceUnavailable',
    code: 503,
  });
  expect(JSON.parse((await call('DELETE', '/apis/events.k8s.io/v1/namespaces/default/events/e')).body).message).toBe(
    'wait for storage version registration to complete for resource: events.events.k8s.io, last seen error: <nil>',
  );
  expect((await call('POST', '/api/v1/namespaces')).status).toBe(503);
});

it('lets reads, StorageVersions, kube-system leases and its own namespaces through', async () => {
  expect((await call('GET', '/api/v1/namespaces/default/configmaps')).status).toBe(200);
  expect((await call('GET', '/api/v1/watch/pods')).status).toBe(200);
  expect((await call('POST', '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions')).status).toBe(200);
  expect((await call('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases')).status).toBe(200);
  expect((await call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases')).status).toBe(503);
  expect((await call('POST', '/api/v1/namespaces', { 'x-as-apiserver': 'yes' })).status).toBe(200);
  expect((await call('GET', '/healthz')).status).toBe(200);
});

it('publishes once the identity lease exists, and then holds nothing', async () => {
  await operations().createObject(find('coordination.k8s.io', 'v1', 'leases'), {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { namespace: 'kube-system', name: 'apiserver-test' },
    spec: {},
  });
  await waitUntil(
    'the writes to pass',
    async () => (await call('POST', '/api/v1/namespaces/default/configmaps')).status === 200,
    20_000,
  );
  const pods = await testStore
    .storageFor(find('internal.apiserver.k8s.io', 'v1alpha1', 'storageversions'))
    .get({ name: 'core.pods' });
  expect(pods.status).toMatchObject({
    storageVersions: [{ apiServerID: 'apiserver-test', encodingVersion: 'v1' }],
    commonEncodingVersion: 'v1',
  });
}, 30_000);
