/**
 * The gates discovery reads, as kube-apiserver 1.34.4 answered with each at its default and
 * flipped. StorageVersionHash (on by default): off, the built-in kinds of `/api/v1` and
 * `/apis/<group>/<version>` carry no `storageVersionHash`, while a custom resource keeps its
 * own, which the reference's CRD discovery computes whatever the gate says.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { featureGateReader } from '../../../server/config/feature-enabled';
import { mountDiscovery } from '../../../server/discovery/mount-discovery';
import type { APIResourceList } from '../../../server/discovery/legacy-documents';
import { statusErrorHandler } from '../../../server/http/errors';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { widgetCRD } from '../apiextensions/fixtures';

const servers: Server[] = [];

/** Discovery of the built-in kinds and one custom resource under the given gates. */
async function discoveryWith(gates: Record<string, boolean>): Promise<(path: string) => Promise<Response>> {
  const app = express();
  const registry = new ResourceTypeRegistry({ types: [...BUILTIN_TYPES, customResourceType(widgetCRD())] });
  mountDiscovery(app, { registry, featureEnabled: featureGateReader(gates) });
  app.use(statusErrorHandler());
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return (path) => fetch(base + path);
}

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

async function hashes(get: (path: string) => Promise<Response>, path: string): Promise<Record<string, unknown>> {
  const list = (await (await get(path)).json()) as APIResourceList;
  return Object.fromEntries(
    list.resources
      .filter(({ name }) => !name.includes('/'))
      .map(({ name, storageVersionHash }) => [name, storageVersionHash]),
  );
}

describe('StorageVersionHash', () => {
  test('on (the default): every kind names its hash', async () => {
    const get = await discoveryWith({});
    expect(await hashes(get, '/apis/apps/v1')).toMatchObject({ deployments: '8aSe+NMegvE=' });
    expect((await hashes(get, '/api/v1')).configmaps).toBe('qFsyl6wFWjQ=');
    expect((await hashes(get, '/apis/example.com/v1')).widgets).toEqual(expect.any(String));
  });

  test('off: built-in kinds name none, a custom resource still names its own', async () => {
    const get = await discoveryWith({ StorageVersionHash: false });
    expect(Object.values(await hashes(get, '/apis/apps/v1')).filter(Boolean)).toEqual([]);
    expect(Object.values(await hashes(get, '/api/v1')).filter(Boolean)).toEqual([]);
    const custom = await hashes(get, '/apis/example.com/v1');
    expect(custom.widgets).toBe((await hashes(await discoveryWith({}), '/apis/example.com/v1')).widgets);
  });
});
