/**
 * The OpenAPIEnums gate, as kube-apiserver 1.34.4 answered with it at its default (on) and off:
 * off, no built-in definition of `/openapi/v3/api/v1` or `/openapi/v2` carries an `enum` (the
 * reference's v3 core document had 54 at its default and none with the gate off; its v2 kept
 * one, JSONSchemaProps' property named `enum`), nor a "Possible enum values:" section in a
 * description (48 in that v3 document at the default). A custom resource's own enum stays.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import { BUILTIN_TYPES } from '../../../server/builtin-types';
import { featureGateReader } from '../../../server/config/feature-enabled';
import { mountOpenAPI } from '../../../server/openapi/mount-openapi';
import { ResourceTypeRegistry } from '../../../server/registry/registry';
import { widgetCRD } from '../apiextensions/fixtures';

type Schema = { enum?: unknown[]; description?: string; properties?: Record<string, Schema> };
type Document = { components?: { schemas: Record<string, Schema> }; definitions?: Record<string, Schema> };

const servers: Server[] = [];

async function openAPIWith(gates: Record<string, boolean>): Promise<(path: string) => Promise<Document>> {
  const app = express();
  const registry = new ResourceTypeRegistry({ types: [...BUILTIN_TYPES, customResourceType(widgetCRD())] });
  mountOpenAPI(app, { registry, featureEnabled: featureGateReader(gates) });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (path) => (await (await fetch(base + path)).json()) as Document;
}

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

/** How many times `"enum"` appears in the document, as keyword or property name. */
const enumCount = (document: Document) => (JSON.stringify(document).match(/"enum"/g) ?? []).length;
const CONTAINER_PORT = 'io.k8s.api.core.v1.ContainerPort';
const WIDGET = 'com.example.v1.Widget';
const JSON_SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

test('on (the default): enum-typed fields name their values', async () => {
  const get = await openAPIWith({});
  const core = await get('/openapi/v3/api/v1');
  expect(core.components!.schemas[CONTAINER_PORT].properties!.protocol.enum).toEqual(['SCTP', 'TCP', 'UDP']);
  const v2 = await get('/openapi/v2');
  expect(v2.definitions![CONTAINER_PORT].properties!.protocol.enum).toEqual(['SCTP', 'TCP', 'UDP']);
  expect(core.components!.schemas[CONTAINER_PORT].properties!.protocol.description).toMatch(
    /\.\n\nPossible enum values:\n - `"SCTP"` is the SCTP protocol\.\n - `"TCP"` is the TCP protocol\.\n - `"UDP"` is the UDP protocol\.$/,
  );
});

test('off: no built-in definition names them; a custom resource keeps its own', async () => {
  const get = await openAPIWith({ OpenAPIEnums: false });
  const core = await get('/openapi/v3/api/v1');
  expect(enumCount(core)).toBe(0);
  const protocol = core.components!.schemas[CONTAINER_PORT].properties!.protocol;
  expect(protocol).not.toHaveProperty('enum');
  const described = (await (await openAPIWith({}))('/openapi/v3/api/v1')).components!.schemas[CONTAINER_PORT];
  const withSection = described.properties!.protocol.description!;
  expect(protocol.description).toBe(withSection.slice(0, withSection.indexOf('\n\nPossible enum values:')));
  expect(JSON.stringify(core)).not.toContain('Possible enum values:');
  const v2 = await get('/openapi/v2');
  expect(v2.definitions![JSON_SCHEMA_PROPS].properties).toHaveProperty('enum');
  const spec = (await get('/openapi/v3/apis/example.com/v1')).components!.schemas[WIDGET].properties!.spec;
  expect(spec.properties!.color.enum).toEqual(['red', 'blue']);
  expect(enumCount(v2)).toBe(2);
});
