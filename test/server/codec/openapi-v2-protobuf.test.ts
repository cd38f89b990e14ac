/**
 * `/openapi/v2` in gnostic protobuf: decoded with the gnostic message schema and compared with
 * the JSON document; ETag/304 as the JSON form; and kubectl 1.33 `explain` against a server that
 * serves discovery and OpenAPI v2 but answers 404 on `/openapi/v3`, so it falls back to v2
 * protobuf (what it does with a server without v3).
 */
import express from 'express';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { mountDiscovery } from '../../../server/discovery/mount-discovery';
import { mountOpenAPI } from '../../../server/openapi/mount-openapi';
import { openAPIV2DocumentType } from '../../../server/openapi/openapi-v2-protobuf';
import { builtinRegistry } from '../../../server/builtin-types';

const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

let server: Server;
let base: string;
let home: string;
const requested: string[] = [];

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'capstan-openapi-v2-'));
  const app = express();
  app.use((req, res, next) => {
    requested.push(`${req.path} ${req.headers.accept ?? ''}`);
    if (req.path.startsWith('/openapi/v3')) {
      res.status(404).end();
      return;
    }
    next();
  });
  const registry = builtinRegistry();
  mountDiscovery(app, { registry });
  mountOpenAPI(app, { registry });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

interface Decoded {
  swagger: string;
  definitions: {
    additional_properties: {
      name: string;
      value: {
        properties?: { additional_properties: { name: string }[] };
        vendor_extension?: { name: string; value: { yaml: string } }[];
      };
    }[];
  };
  paths: { path: { name: string }[] };
  security_definitions: {
    additional_properties: { name: string; value: { api_key_security?: { name: string; in: string } } }[];
  };
}

describe('/openapi/v2 in protobuf', () => {
  test('decodes with the gnostic schema into the JSON document, with the JSON form ETag and 304', async () => {
    const json = await fetch(`${base}/openapi/v2`, { headers: { accept: 'application/json' } });
    const document = (await json.json()) as {
      definitions: Record<string, { properties?: Record<string, unknown> }>;
      paths: Record<string, unknown>;
    };
    const answer = await fetch(`${base}/openapi/v2`, { headers: { accept: `${PROTOBUF}, application/json` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    // kube-openapi's gzip handler adds its Vary before the handler's own.
    expect(answer.headers.get('vary')).toBe('Accept-Encoding, Accept');
    expect(answer.headers.get('etag')).toBe(json.headers.get('etag'));

    const type = openAPIV2DocumentType();
    const decoded = type.toObject(type.decode(Buffer.from(await answer.arrayBuffer())), { defaults: false }) as Decoded;
    expect(decoded.swagger).toBe('2.0');
    expect(decoded.definitions.additional_properties.map((entry) => entry.name)).toEqual(
      Object.keys(document.definitions),
    );
    expect(decoded.paths.path.map((entry) => entry.name)).toEqual(Object.keys(document.paths));
    const deployment = decoded.definitions.additional_properties.find(
      (entry) => entry.name === 'io.k8s.api.apps.v1.Deployment',
    );
    expect(deployment?.value.properties?.additional_properties.map((entry) => entry.name)).toEqual(
      Object.keys(document.definitions['io.k8s.api.apps.v1.Deployment'].properties ?? {}),
    );
    const gvk = deployment?.value.vendor_extension?.find(
      (extension) => extension.name === 'x-kubernetes-group-version-kind',
    );
    expect(parseYaml(gvk?.value.yaml ?? '')).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect(decoded.security_definitions.additional_properties[0]).toMatchObject({
      name: 'BearerToken',
      value: { api_key_security: { name: 'authorization', in: 'header' } },
    });

    const cached = await fetch(`${base}/openapi/v2`, {
      headers: { accept: PROTOBUF, 'if-none-match': answer.headers.get('etag') ?? '' },
    });
    expect(cached.status).toBe(304);
  });

  const kubectlPresent = existsSync(KUBECTL);
  (kubectlPresent ? test : test.skip)(
    'kubectl explain falls back to v2 protobuf when /openapi/v3 is missing',
    async () => {
      requested.length = 0;
      const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
        (resolve) => {
          execFile(
            KUBECTL,
            ['--server', base, 'explain', 'deployment.spec.strategy'],
            { env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: join(home, 'none') }, timeout: 30_000 },
            (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
          );
        },
      );
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      // The v2 renderer's layout (the v3 one prints GROUP/FIELD headers instead).
      expect(stdout).toMatch(/KIND:\s+Deployment\nVERSION:\s+apps\/v1\n/);
      expect(stdout).toMatch(/RESOURCE:\s+strategy <Object>/);
      expect(stdout).toMatch(/rollingUpdate\t<Object>/);
      expect(stdout).toMatch(/type\t<string>/);
      expect(
        requested.some((line) => line.startsWith('/openapi/v2 application/com.github.proto-openapi.spec.v2')),
      ).toBe(true);
    },
    40_000,
  );
});
