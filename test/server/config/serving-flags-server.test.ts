/**
 * What the serving flags do in a whole replica (in-process: real chain, control plane, SQLite):
 * `--allow-privileged` in pod validation (pods, workload templates, ephemeral containers; the
 * messages are kube-apiserver v1.34.4's), `--watch-cache-sizes` (and the reference's uncached
 * events), `--show-hidden-metrics-for-version`, `--min-request-timeout` on watches and
 * `--profiling`'s /debug/pprof/ (read back with `go tool pprof`) and `--disable-http2-serving`.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { gunzipSync } from 'node:zlib';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { WatchCache } from '../../../storage/cache/watch-cache';
import { inProcessServerForSuite, type SuiteServer } from '../../helpers/in-process-server';

const POD = (name: string, container: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'x', ...container }] },
  });
const PRIVILEGED = { securityContext: { privileged: true } };
const DEPLOYMENT = JSON.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: {
    selector: { matchLabels: { a: 'b' } },
    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x', ...PRIVILEGED }] } },
  },
});
const JSON_BODY = { 'Content-Type': 'application/json' };

async function post(server: SuiteServer, path: string, body: string) {
  const reply = await server.request('POST', path, { body, headers: JSON_BODY });
  return { status: reply.status, message: reply.json<{ message?: string }>().message };
}

function typeOf(server: SuiteServer, group: string, resource: string) {
  const type = server.plane.registry.find({ group, version: 'v1' }, resource);
  if (!type) throw new Error(`${group}/${resource} not served`);
  return type;
}

describe('a replica at the reference defaults', () => {
  const server = inProcessServerForSuite(['--disable-admission-plugins=ServiceAccount']);

  it('refuses privileged containers in pods and workload templates, as the reference words it', async () => {
    const pod = await post(
      server,
      '/api/v1/namespaces/default/pods',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: {
          initContainers: [{ name: 'i', image: 'x', ...PRIVILEGED }],
          containers: [{ name: 'c', image: 'x', ...PRIVILEGED }],
        },
      }),
    );
    expect(pod).toEqual({
      status: 422,
      message:
        'Pod "p" is invalid: [spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy, spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy]',
    });
    expect(await post(server, '/apis/apps/v1/namespaces/default/deployments', DEPLOYMENT)).toEqual({
      status: 422,
      message:
        'Deployment.apps "d" is invalid: spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy',
    });
    const windows = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'w' },
      spec: { securityContext: { windowsOptions: { hostProcess: true } }, containers: [{ name: 'c', image: 'x' }] },
    });
    expect(await post(server, '/api/v1/namespaces/default/pods', windows)).toEqual({
      status: 422,
      message:
        'Pod "w" is invalid: [spec.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers, spec: Forbidden: hostProcess containers are disallowed by cluster policy]',
    });
  });

  it('refuses a privileged ephemeral container', async () => {
    expect((await post(server, '/api/v1/namespaces/default/pods', POD('debugged', {}))).status).toBe(201);
    const pod = (await server.request('GET', '/api/v1/namespaces/default/pods/debugged')).json<
      Record<string, { ephemeralContainers?: unknown[] }>
    >();
    pod.spec.ephemeralContainers = [{ name: 'debugger', image: 'busybox', ...PRIVILEGED }];
    const reply = await server.request('PUT', '/api/v1/namespaces/default/pods/debugged/ephemeralcontainers', {
      body: JSON.stringify(pod),
      headers: JSON_BODY,
    });
    expect(reply.status).toBe(422);
    expect(reply.json<{ message: string }>().message).toBe(
      'Pod "debugged" is invalid: spec.ephemeralContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy',
    );
  });

  it('serves events of both groups without a watch cache and the rest with one', () => {
    expect(server.plane.storageFor(typeOf(server, '', 'events'))).toBeInstanceOf(ResourceStore);
    expect(server.plane.storageFor(typeOf(server, 'events.k8s.io', 'events'))).toBeInstanceOf(ResourceStore);
    expect(server.plane.storageFor(typeOf(server, '', 'pods'))).toBeInstanceOf(WatchCache);
  });

  it('still lists events, from the store', async () => {
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'R',
      message: 'm',
      type: 'Normal',
    };
    expect((await post(server, '/api/v1/namespaces/default/events', JSON.stringify(event))).status).toBe(201);
    const list = (await server.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events')).json<{
      items: { metadata: { name: string } }[];
    }>();
    expect(list.items.map((item) => item.metadata.name)).toEqual(['e']);
  });

  it('hides the metrics deprecated before 1.34', async () => {
    const metrics = (await server.request('GET', '/metrics')).body;
    expect(metrics).toContain('apiserver_flowcontrol_nominal_limit_seats');
    expect(metrics).not.toContain('apiserver_flowcontrol_request_concurrency_limit');
    expect(metrics).not.toContain('apiserver_flowcontrol_request_concurrency_in_use');
  });

  it('serves a CPU and a heap profile at /debug/pprof/, which go tool pprof reads', async () => {
    // Authorized as any non-resource path: anonymous may not read it.
    const anonymous = await new Promise<number>((resolve, reject) =>
      request(
        new URL('/debug/pprof/', server.url),
        { ca: server.credentials.ca },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      )
        .on('error', reject)
        .end(),
    );
    expect(anonymous).toBe(403);
    const index = await server.request('GET', '/debug/pprof/');
    expect(index.status).toBe(200);
    expect(index.body).toContain("href='profile?debug=1'");
    for (const [name, sampleType] of [
      ['profile', 'samples/count cpu/nanoseconds'],
      ['heap', 'inuse_space/bytes'],
    ] as const) {
      const bytes = await getBinary(server, `/debug/pprof/${name}?seconds=1`);
      expect(gunzipSync(bytes).length).toBeGreaterThan(0);
      const file = join(server.dataDir, `${name}.pb.gz`);
      writeFileSync(file, bytes);
      const raw = await goToolPprofRaw(file);
      expect(raw).toContain(`Samples:\n${sampleType}\n`);
    }
    // One profile at a time, as Go allows one CPU profile.
    const first = getBinary(server, '/debug/pprof/profile?seconds=1');
    // The first must hold the profiler before the second asks, and nothing tells when it does; a
    // retry would not do, as a second arriving first would take the profiler itself.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await server.request('GET', '/debug/pprof/heap?seconds=1');
    expect(second.status).toBe(500);
    expect(second.body).toBe('Could not enable CPU profiling: cpu profiling already in use\n');
    expect((await first).length).toBeGreaterThan(0);
    expect((await server.request('GET', '/debug/pprof/goroutine')).status).toBe(404);
    expect((await server.request('GET', '/debug/pprof/profile?seconds=x')).status).toBe(400);
  }, 20_000);
});

describe('a replica with the flags set', () => {
  const server = inProcessServerForSuite([
    '--disable-admission-plugins=ServiceAccount',
    '--allow-privileged',
    '--watch-cache-sizes=pods#0,events#100',
    '--show-hidden-metrics-for-version=1.33',
    '--min-request-timeout=1',
    '--profiling=false',
    '--disable-http2-serving',
  ]);

  it('admits privileged containers with --allow-privileged', async () => {
    expect((await post(server, '/api/v1/namespaces/default/pods', POD('p', PRIVILEGED))).status).toBe(201);
    expect((await post(server, '/apis/apps/v1/namespaces/default/deployments', DEPLOYMENT)).status).toBe(201);
  });

  it('follows --watch-cache-sizes: 0 goes to the store, any other size keeps a cache', () => {
    expect(server.plane.storageFor(typeOf(server, '', 'pods'))).toBeInstanceOf(ResourceStore);
    expect(server.plane.storageFor(typeOf(server, '', 'events'))).toBeInstanceOf(WatchCache);
    expect(server.plane.storageFor(typeOf(server, 'events.k8s.io', 'events'))).toBeInstanceOf(ResourceStore);
    expect(server.plane.storageFor(typeOf(server, '', 'configmaps'))).toBeInstanceOf(WatchCache);
  });

  it('shows the hidden metrics again with --show-hidden-metrics-for-version=1.33', async () => {
    const metrics = (await server.request('GET', '/metrics')).body;
    expect(metrics).toContain(
      '# HELP apiserver_flowcontrol_request_concurrency_limit (Deprecated since 1.30.0) Nominal number of execution seats configured for each priority level',
    );
    expect(metrics).toMatch(/^apiserver_flowcontrol_request_concurrency_limit\{priority_level="exempt"\} 0$/m);
    expect(metrics).toContain('# HELP apiserver_flowcontrol_request_concurrency_in_use (Deprecated since 1.31.0)');
    // The scrape itself is executing.
    expect(metrics).toMatch(
      /^apiserver_flowcontrol_request_concurrency_in_use\{flow_schema="exempt",priority_level="exempt"\} 1$/m,
    );
  });

  it('ends a watch without timeoutSeconds after [min, 2·min) of --min-request-timeout', async () => {
    for (const path of [
      '/api/v1/namespaces/default/configmaps?watch=true',
      '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=0',
    ]) {
      const started = performance.now();
      await getBinary(server, path);
      const seconds = (performance.now() - started) / 1000;
      expect(seconds).toBeGreaterThanOrEqual(0.95);
      expect(seconds).toBeLessThan(2.5);
    }
  });

  it('serves no /debug/pprof/ with --profiling=false', async () => {
    expect((await server.request('GET', '/debug/pprof/')).status).toBe(404);
    expect((await server.request('GET', '/debug/pprof/profile?seconds=1')).status).toBe(404);
  });

  it('picks http/1.1 from a client that offers h2 first, with --disable-http2-serving', async () => {
    expect(await negotiatedProtocol(server, ['h2', 'http/1.1'])).toBe('http/1.1');
  });

  // What the reference 1.34.4 answers with --disable-http2-serving=true, checked there: a
  // handshake that offers nothing it serves ends with TLS's no_application_protocol alert.
  it('refuses the handshake of a client that offers only h2, with --disable-http2-serving', async () => {
    await expect(negotiatedProtocol(server, ['h2'])).rejects.toMatchObject({
      code: 'ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL',
    });
  });
});

/** The protocol the server picks from a client's ALPN offer (false: it picked none). */
function negotiatedProtocol(server: SuiteServer, offer: string[]): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const { ca, cert, key } = server.credentials;
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port), ca, cert, key, ALPNProtocols: offer }, () => {
      resolve(socket.alpnProtocol ?? false);
      socket.end();
    });
    socket.on('error', reject);
  });
}

function getBinary(server: SuiteServer, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const { ca, cert, key } = server.credentials;
    const req = request(new URL(path, server.url), { ca, cert, key }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${path}: ${res.statusCode}`)),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function goToolPprofRaw(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('go', ['tool', 'pprof', '-raw', file], { timeout: 15_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}
