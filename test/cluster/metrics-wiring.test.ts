/**
 * The metrics as the whole server process wires them: store latencies per resource, watch
 * cache revisions, request counts, and this replica's compactions on a short interval;
 * `--runtime-config` turning a group-version off.
 */
import { startServer, type TestServer } from '../helpers/server';
import { retryUntil } from '../helpers/wait-for';

describe('a server process', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ flags: ['--etcd-compaction-interval=300ms', '--runtime-config=batch/v1=false'] });
  });
  afterAll(() => server.stop());

  it('shows store, cache, request and compaction metrics at /metrics', async () => {
    const created = await server.request('POST', '/api/v1/namespaces', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'metered' } }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const text = await retryUntil(
      async () => (await server.request('GET', '/metrics')).body,
      (metrics) => /capstan_compactions_total [1-9]/.test(metrics),
      5_000,
    );
    expect(text).toMatch(/capstan_compactions_total [1-9]/);
    expect(text).toMatch(
      /etcd_request_duration_seconds_count\{operation="create",group="",resource="namespaces"\} [1-9]/,
    );
    expect(text).toMatch(/apiserver_watch_cache_resource_version\{group="",resource="namespaces"\} [1-9]/);
    expect(text).toMatch(/apiserver_storage_objects\{resource="namespaces"\} [1-9]/);
    expect(text).toMatch(
      /apiserver_request_total\{verb="POST",dry_run="",group="",version="v1",resource="namespaces",subresource="",scope="resource",component="apiserver",code="201"\} 1/,
    );
  });

  it('does not serve a group-version --runtime-config turned off', async () => {
    expect((await server.request('GET', '/apis/batch/v1/jobs')).status).toBe(404);
    expect((await server.request('GET', '/apis/apps/v1/deployments')).status).toBe(200);
  });
});
