/**
 * The gates discovery reads, as kube-apiserver 1.34.4 answered with each at its default and
 * flipped. StorageVersionHash (on by default): off, the built-in kinds of `/api/v1` and
 * `/apis/<group>/<version>` carry no `storageVersionHash`, while a custom resource keeps its
 * own, which the reference's CRD discovery computes whatever the gate says.
 * AggregatedDiscoveryRemoveBetaType (on by default): on, an `Accept` range for the v2beta1
 * aggregated document is passed over like any other range the server does not serve; off, `/api`
 * and `/apis` serve it.
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
async function discoveryWith(
  gates: Record<string, boolean>,
): Promise<(path: string, accept?: string) => Promise<Response>> {
  const app = express();
  const registry = new ResourceTypeRegistry({ types: [...BUILTIN_TYPES, customResourceType(widgetCRD())] });
  mountDiscovery(app, { registry, featureEnabled: featureGateReader(gates) });
  app.use(statusErrorHandler());
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return (path, accept) => fetch(base + path, accept === undefined ? {} : { headers: { accept } });
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

describe('AggregatedDiscoveryRemoveBetaType', () => {
  const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
  const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
  const answer = async (response: Response) => ({
    status: response.status,
    type: response.headers.get('content-type'),
    kind: ((await response.json()) as { kind: string; apiVersion?: string }).kind,
  });

  test('on (the default): v2beta1 is not served, the next acceptable range is', async () => {
    const get = await discoveryWith({});
    for (const path of ['/api', '/apis']) {
      expect(await answer(await get(path, V2BETA1))).toEqual({ status: 406, type: 'application/json', kind: 'Status' });
      expect(await answer(await get(path, `${V2BETA1}, ${V2}`))).toEqual({
        status: 200,
        type: V2,
        kind: 'APIGroupDiscoveryList',
      });
    }
    // The refusal names the unaggregated documents' types, as the reference's does.
    const refusal = (await (await get('/apis', V2BETA1)).json()) as { message: string };
    expect(refusal.message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    expect(await answer(await get('/apis', `application/json;q=0.5, ${V2BETA1}`))).toEqual({
      status: 200,
      type: 'application/json',
      kind: 'APIGroupList',
    });
  });

  test('off: v2beta1 is served where asked for first', async () => {
    const get = await discoveryWith({ AggregatedDiscoveryRemoveBetaType: false });
    for (const path of ['/api', '/apis']) {
      const response = await get(path, `application/json;q=0.5, ${V2BETA1}, ${V2};q=0.9`);
      expect(response.headers.get('etag')).toMatch(/^"[0-9A-F]{128}"$/);
      expect(await answer(response)).toEqual({ status: 200, type: V2BETA1, kind: 'APIGroupDiscoveryList' });
    }
  });
});
