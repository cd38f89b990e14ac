/**
 * Strategic merge patch through the PATCH handler: a real registry, the generated schema data
 * and a SQLite store in a temp dir, over loopback HTTP.
 */
import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { notFoundHandler, statusErrorHandler } from '../../../server/http/errors';
import { withRequestInfo } from '../../../server/http/with-request-info';
import { BuiltinRegistry } from '../../../server/registry/registry';
import type { ResourceType } from '../../../server/registry/types';
import { resourceRoutes } from '../../../server/handlers/routes';
import { schemaData } from '../../../server/schema/definitions';

let dir: string;
let store: RevisionedStore;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-smp-'));
  store = await openSqliteStore({ path: join(dir, 'state.db') });
  const storages = new Map<ResourceType, ResourceStore>();
  const storageFor = (type: ResourceType): ResourceStore => {
    let storage = storages.get(type);
    if (storage === undefined) {
      storage = new ResourceStore({ store, keyPrefix: `/registry/${type.storagePrefix}`, qualifiedResource: { group: type.group, resource: type.resource }, namespaced: type.namespaced });
      storages.set(type, storage);
    }
    return storage;
  };
  const app = express();
  app.use(withRequestInfo());
  app.use(resourceRoutes({ registry: new BuiltinRegistry(), storageFor, definitions: schemaData().definitions }));
  app.use(notFoundHandler());
  app.use(statusErrorHandler());
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body: unknown, contentType = 'application/json'): Promise<{ status: number; body: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const response = await fetch(base + path, { method, headers: { 'content-type': contentType, 'user-agent': 'smp-test/v1' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

test('a strategic merge patch merges containers by name and env by name', async () => {
  const created = await call('POST', DEPLOYMENTS, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }, { name: 'side', image: 'busybox' }] },
      },
    },
  });
  expect(created.status).toBe(201);
  const patched = await call(
    'PATCH',
    `${DEPLOYMENTS}/web`,
    { spec: { replicas: 3, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28', env: [{ name: 'B', $patch: 'delete' }] }] } } } },
    'application/strategic-merge-patch+json',
  );
  expect(patched.status).toBe(200);
  expect(patched.body.spec.replicas).toBe(3);
  const containers = patched.body.spec.template.spec.containers as Array<Record<string, unknown>>;
  expect(containers.map((container) => [container.name, container.image, container.env])).toEqual([
    ['nginx', 'nginx:1.28', [{ name: 'A', value: '1' }]],
    ['side', 'busybox', undefined],
  ]);
});
