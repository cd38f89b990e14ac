/**
 * Server-side apply bodies through the PATCH handler with the CBOR gate on: a real registry,
 * the generated schema data and a SQLite store in a temp dir, over loopback HTTP.
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
import { encodeCbor } from '../../../server/codec/cbor';
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
  dir = mkdtempSync(join(tmpdir(), 'capstan-apply-http-'));
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
  app.use(resourceRoutes({ registry: new BuiltinRegistry(), storageFor, definitions: schemaData().definitions, representations: { cbor: true, compression: false } }));
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

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

async function patch(path: string, contentType: string, body: string | Uint8Array): Promise<{ status: number; warnings: string | null; body: Record<string, unknown> }> {
  const response = await fetch(base + path, { method: 'PATCH', headers: { 'content-type': contentType, accept: 'application/json' }, body });
  return { status: response.status, warnings: response.headers.get('warning'), body: (await response.json()) as Record<string, unknown> };
}

test('with the gate on, an apply body may be CBOR, and the 415 lists that type', async () => {
  const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-cbor' }, data: { a: '1' } };
  const created = await patch(`${CONFIGMAPS}/from-cbor?fieldManager=ctl`, 'application/apply-patch+cbor', encodeCbor(config));
  expect(created.status).toBe(201);
  expect(created.body.data).toEqual({ a: '1' });

  const malformed = await patch(`${CONFIGMAPS}/from-cbor?fieldManager=ctl`, 'application/apply-patch+cbor', Uint8Array.from([0xa1]));
  expect(malformed.status).toBe(400);
  expect(malformed.body.message).toMatch(/^error decoding CBOR: /);

  const unknown = await patch(`${CONFIGMAPS}/from-cbor`, 'text/plain', 'x');
  expect(unknown.body.message).toBe(
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, ' +
      'application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
  );
});

test('YAML bodies: repeated keys are a warning by default; a non-object and a configuration of another kind are 400', async () => {
  const repeated = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: warned\ndata:\n  a: "1"\n  a: "2"\n';
  const warned = await patch(`${CONFIGMAPS}/warned?fieldManager=ctl`, 'application/apply-patch+yaml', repeated);
  expect(warned.status).toBe(201);
  expect(warned.warnings).toBe('299 - "error converting YAML to JSON: yaml: unmarshal errors:\\n  line 7: key \\"a\\" already set in map"');

  const list = await patch(`${CONFIGMAPS}/warned?fieldManager=ctl`, 'application/apply-patch+yaml', '- a\n- b\n');
  expect(list.status).toBe(400);
  expect(list.body.message).toBe('error decoding YAML: json: cannot unmarshal array into Go value of type map[string]interface {}');

  const otherKind = await patch(`${CONFIGMAPS}/warned?fieldManager=ctl`, 'application/apply-patch+yaml', JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'warned' } }));
  expect(otherKind.status).toBe(400);
  expect(otherKind.body.message).toBe('invalid object type: /v1, Kind=Secret');
});

test('a configuration of another kind is refused as such before its fields are typed', async () => {
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cm' }, type: 'Opaque', stringData: { a: 'b' } };
  const answer = await patch(`${CONFIGMAPS}/cm?fieldManager=ctl`, 'application/apply-patch+yaml', JSON.stringify(secret));
  expect(answer.status).toBe(400);
  expect(answer.body.message).toBe('invalid object type: /v1, Kind=Secret');
});
