/**
 * The real kubectl against an HTTP server serving only discovery and OpenAPI: `api-resources`
 * and `api-versions` read (aggregated) discovery, `explain` reads OpenAPI v3 built from the
 * generated schema data.
 */
import express from 'express';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mountDiscovery } from '../../../server/discovery/mount-discovery';
import { mountOpenAPI } from '../../../server/openapi/mount-openapi';
import { fixtureRegistry } from '../discovery/fixtures';

const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
/** Knows aggregated discovery only as v2beta1. */
const KUBECTL_1_27 = '/usr/lib/google-cloud-sdk/bin/kubectl.1.27';
const run = promisify(execFile);

describe('kubectl against discovery and OpenAPI', () => {
  let server: Server;
  let directory: string;
  let kubeconfig: string;
  const requests: string[] = [];

  beforeAll(async () => {
    const app = express();
    app.use((request, _response, next) => {
      requests.push(`${request.method} ${request.url} ${request.headers.accept ?? ''}`);
      next();
    });
    const registry = fixtureRegistry();
    mountDiscovery(app, { registry });
    mountOpenAPI(app, { registry });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as AddressInfo).port;

    directory = await mkdtemp(join(tmpdir(), 'capstan-kubectl-'));
    kubeconfig = join(directory, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: local, cluster: {server: "http://127.0.0.1:' + port + '"}}]',
        'users: [{name: anonymous, user: {}}]',
        'contexts: [{name: local, context: {cluster: local, user: anonymous}}]',
        'current-context: local',
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(directory, { recursive: true, force: true });
  });

  // A fresh cache directory per call, so every command really asks the server.
  const kubectlOf =
    (binary: string) =>
    async (...args: string[]) => {
      const cacheDir = await mkdtemp(join(directory, 'cache-'));
      const { stdout } = await run(binary, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], {
        timeout: 20_000,
        env: { PATH: process.env.PATH ?? '', HOME: directory },
      });
      return stdout;
    };
  const kubectl = kubectlOf(KUBECTL);

  test('api-versions', async () => {
    expect((await kubectl('api-versions')).trim().split('\n')).toEqual(['apps/v1', 'authorization.k8s.io/v1', 'v1']);
    // Aggregated discovery answered: kubectl did not fall back to per-group-version documents.
    expect(requests.filter((line) => line.startsWith('GET /api'))).toEqual([
      expect.stringMatching(/^GET \/api\?timeout=\S+ application\/json;g=apidiscovery\.k8s\.io;v=v2;/),
      expect.stringMatching(/^GET \/apis\?timeout=\S+ application\/json;g=apidiscovery\.k8s\.io;v=v2;/),
    ]);
  });

  test('api-versions from a client that asks for v2beta1: the unaggregated documents, as 1.34 removed it', async () => {
    requests.length = 0;
    expect((await kubectlOf(KUBECTL_1_27)('api-versions')).trim().split('\n')).toEqual([
      'apps/v1',
      'authorization.k8s.io/v1',
      'v1',
    ]);
    const discovery = requests.filter((line) => line.startsWith('GET /api'));
    expect(discovery.slice(0, 2)).toEqual([
      expect.stringMatching(/^GET \/api\?timeout=\S+ application\/json;g=apidiscovery\.k8s\.io;v=v2beta1;/),
      expect.stringMatching(/^GET \/apis\?timeout=\S+ application\/json;g=apidiscovery\.k8s\.io;v=v2beta1;/),
    ]);
    // Asked for together, in no fixed order.
    expect(discovery.slice(2).sort()).toEqual([
      expect.stringMatching(/^GET \/api\/v1\?timeout=\S+ application\/json, \*\/\*$/),
      expect.stringMatching(/^GET \/apis\/apps\/v1\?timeout=\S+ application\/json, \*\/\*$/),
      expect.stringMatching(/^GET \/apis\/authorization\.k8s\.io\/v1\?timeout=\S+ application\/json, \*\/\*$/),
    ]);
  });

  test('api-resources', async () => {
    const lines = (await kubectl('api-resources', '--no-headers'))
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/));
    expect(lines).toEqual([
      ['namespaces', 'ns', 'v1', 'false', 'Namespace'],
      ['pods', 'po', 'v1', 'true', 'Pod'],
      ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment'],
      ['selfsubjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectAccessReview'],
    ]);
  });

  test('api-resources -o wide shows verbs and categories', async () => {
    const output = await kubectl('api-resources', '--api-group=apps', '-o', 'wide', '--no-headers');
    expect(output).toMatch(
      /deployments\s+deploy\s+apps\/v1\s+true\s+Deployment\s+create,delete,deletecollection,get,list,patch,update,watch\s+all/,
    );
  });

  test('explain deployment.spec.strategy', async () => {
    const output = await kubectl('explain', 'deployment.spec.strategy');
    expect(output).toMatch(/GROUP:\s+apps/);
    expect(output).toMatch(/KIND:\s+Deployment/);
    expect(output).toMatch(/FIELD: strategy <DeploymentStrategy>/);
    expect(output).toMatch(/rollingUpdate\s+<RollingUpdateDeployment>/);
    expect(output).toMatch(/type\s+<string>/);
    expect(requests.some((line) => line.startsWith('GET /openapi/v3/apis/apps/v1?hash='))).toBe(true);
  });

  test('explain reaches through refs to IntOrString, Quantity maps, arrays and required fields', async () => {
    expect(await kubectl('explain', 'deployment.spec.strategy.rollingUpdate.maxSurge')).toMatch(
      /FIELD: maxSurge <IntOrString>/,
    );
    expect(await kubectl('explain', 'pod.spec.containers.resources.limits')).toMatch(
      /FIELD: limits <map\[string\]Quantity>/,
    );
    const containers = await kubectl('explain', 'pod.spec.containers');
    expect(containers).toMatch(/FIELD: containers <\[\]Container>/);
    expect(containers).toMatch(/name\s+<string> -required-/);
  });

  test('create asks the server to validate strictly, because the PATCH operation advertises fieldValidation', async () => {
    const manifest = join(directory, 'deployment.yaml');
    await writeFile(
      manifest,
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec: {}\n',
    );
    requests.length = 0;
    // No resource handlers here: the POST gets a 404, but its query string is what matters.
    await expect(kubectl('create', '-f', manifest)).rejects.toThrow();
    expect(requests).toContainEqual(
      expect.stringMatching(
        /^POST \/apis\/apps\/v1\/namespaces\/default\/deployments\?fieldManager=kubectl-create&fieldValidation=Strict /,
      ),
    );
  });
});
