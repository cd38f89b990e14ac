/**
 * The metrics under their reference names: request labels, the exposition at /metrics, watch
 * events, deprecated APIs (with a fixture lookup: no built-in kind serves a deprecated version
 * today), store latencies, watch cache statistics and compactions on a real SQLite store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRequestInfo } from '../../../server/request/request-info';
import { createApiserverMetrics, REQUEST_DURATION_BUCKETS } from '../../../server/metrics/apiserver-metrics';
import { recordCompactions } from '../../../server/metrics/compaction-metrics';
import { METRICS_PATH, metricsHandler } from '../../../server/metrics/metrics-handler';
import { requestLabels } from '../../../server/metrics/request-labels';
import { instrumentStore, resourceByKeyPrefix } from '../../../server/metrics/store-metrics';
import {
  observeWatchCaches,
  recordWatchCacheDispatch,
  recordWatchCacheInitialization,
} from '../../../server/metrics/watch-cache-metrics';
import { watchEventRecorder, withRequestMetrics } from '../../../server/metrics/with-request-metrics';
import { startCacheSet } from '../../../storage/cache/cache-set';
import { Compactor } from '../../../storage/compactor';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { plainRequest, startStageServer } from './stage-server';
import { waitUntil } from '../../helpers/wait-for';

describe('request labels', () => {
  const cases: {
    name: string;
    method: string;
    path: string;
    query?: string;
    contentType?: string;
    verb: string;
    scope: string;
    dryRun?: string;
  }[] = [
    { name: 'get', method: 'GET', path: '/api/v1/namespaces/a/pods/p', verb: 'GET', scope: 'resource' },
    { name: 'namespaced list', method: 'GET', path: '/api/v1/namespaces/a/pods', verb: 'LIST', scope: 'namespace' },
    { name: 'cluster list', method: 'GET', path: '/api/v1/pods', verb: 'LIST', scope: 'cluster' },
    {
      name: 'watch by query',
      method: 'GET',
      path: '/api/v1/pods',
      query: 'watch=true',
      verb: 'WATCH',
      scope: 'cluster',
    },
    {
      name: 'legacy watch path',
      method: 'GET',
      path: '/api/v1/watch/namespaces/a/pods',
      verb: 'WATCH',
      scope: 'namespace',
    },
    { name: 'create', method: 'POST', path: '/apis/apps/v1/namespaces/a/deployments', verb: 'POST', scope: 'resource' },
    {
      name: 'apply',
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/a/deployments/d',
      contentType: 'application/apply-patch+yaml',
      verb: 'APPLY',
      scope: 'resource',
    },
    {
      name: 'merge patch',
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/a/deployments/d',
      contentType: 'application/merge-patch+json',
      verb: 'PATCH',
      scope: 'resource',
    },
    {
      name: 'delete collection',
      method: 'DELETE',
      path: '/api/v1/namespaces/a/pods',
      verb: 'DELETE',
      scope: 'namespace',
    },
    {
      name: 'dry run',
      method: 'PUT',
      path: '/api/v1/namespaces/a',
      query: 'dryRun=All&dryRun=All',
      verb: 'PUT',
      scope: 'resource',
      dryRun: 'All',
    },
    { name: 'exec', method: 'POST', path: '/api/v1/namespaces/a/pods/p/exec', verb: 'CONNECT', scope: 'resource' },
    { name: 'non-resource', method: 'GET', path: '/healthz', verb: 'GET', scope: '' },
  ];
  it.each(cases)('$name', ({ method, path, query = '', contentType, verb, scope, dryRun = '' }) => {
    const info = resolveRequestInfo({ method, path, query });
    const labels = requestLabels({ info, method, rawQuery: query, contentType });
    expect(labels).toMatchObject({ verb, scope, dry_run: dryRun, component: 'apiserver' });
  });
});

describe('/metrics', () => {
  it('exposes the reference names, types, labels and buckets, process metrics, watch events and deprecated APIs', async () => {
    const metrics = createApiserverMetrics();
    const server = await startStageServer({
      stagesBeforeUser: [
        withRequestMetrics({
          metrics,
          deprecatedApi: (info) =>
            info.apiGroup === 'flowcontrol.apiserver.k8s.io' && info.apiVersion === 'v1beta3'
              ? { removedRelease: '1.32' }
              : undefined,
        }),
      ],
      stages: [],
      routes: (app) => {
        app.use(
          metricsHandler({
            path: METRICS_PATH,
            registry: metrics.registry,
            scrape: () => metrics.scrape(),
            resettable: true,
          }),
        );
        app.use((req, res) => {
          if (req.requestInfo.verb === 'watch') {
            res.writeHead(200, { 'Content-Type': 'application/json' });
            // As the watch handler does: events of one turn in one write, each reported.
            const events = ['ADDED', 'MODIFIED'].map((type) =>
              Buffer.from(JSON.stringify({ type, object: { kind: 'Pod' } }) + '\n'),
            );
            res.write(Buffer.concat(events));
            const recordEvent = watchEventRecorder(res);
            for (const event of events) recordEvent(event.length);
            res.end();
            return;
          }
          res.json({});
        });
      },
    });
    try {
      await plainRequest(`${server.url}/api/v1/namespaces/a/pods?watch=1`);
      await plainRequest(`${server.url}/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas`);
      const reply = await plainRequest(`${server.url}/metrics`);
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = reply.body;
      for (const [name, type] of [
        ['apiserver_request_total', 'counter'],
        ['apiserver_request_duration_seconds', 'histogram'],
        ['apiserver_current_inflight_requests', 'gauge'],
        ['apiserver_longrunning_requests', 'gauge'],
        ['apiserver_watch_events_total', 'counter'],
        ['apiserver_watch_cache_events_dispatched_total', 'counter'],
        ['apiserver_watch_cache_initializations_total', 'counter'],
        ['apiserver_watch_cache_resource_version', 'gauge'],
        ['apiserver_terminated_watchers_total', 'counter'],
        ['apiserver_storage_objects', 'gauge'],
        ['etcd_request_duration_seconds', 'histogram'],
        ['apiserver_requested_deprecated_apis', 'gauge'],
        ['capstan_compactions_total', 'counter'],
        ['process_cpu_seconds_total', 'counter'],
        ['process_resident_memory_bytes', 'gauge'],
      ]) {
        expect(text).toContain(`# TYPE ${name} ${type}`);
      }
      const watchLabels =
        'verb="WATCH",dry_run="",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver"';
      expect(text).toContain(`apiserver_request_total{${watchLabels},code="200"} 1`);
      for (const bucket of REQUEST_DURATION_BUCKETS) {
        expect(text).toContain(`apiserver_request_duration_seconds_bucket{${watchLabels},le="${bucket}"}`);
      }
      expect(text).toContain('apiserver_watch_events_total{group="",version="v1",resource="pods"} 2');
      expect(text).toContain(
        'apiserver_longrunning_requests{verb="WATCH",group="",version="v1",resource="pods",subresource="",scope="namespace",component="apiserver"} 0',
      );
      expect(text).toContain(
        'apiserver_requested_deprecated_apis{group="flowcontrol.apiserver.k8s.io",version="v1beta3",resource="flowschemas",subresource="",removed_release="1.32"} 1',
      );
    } finally {
      await server.close();
    }
  });
});

describe('storage metrics on SQLite', () => {
  let dir: string;
  let store: RevisionedStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-metrics-'));
    store = await openSqliteStore({ path: join(dir, 'db.sqlite') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('times store calls by operation and resource, and reads watch cache statistics at each scrape', async () => {
    const metrics = createApiserverMetrics({ processMetrics: false });
    const measured = instrumentStore({
      store,
      metrics,
      resourceOfKey: resourceByKeyPrefix(
        new Map([['/registry/deployments', { group: 'apps', resource: 'deployments' }]]),
      ),
    });
    await measured.create('/registry/deployments/a/web', Buffer.from('{"metadata":{"name":"web","namespace":"a"}}'));
    await measured.get('/registry/deployments/a/web');
    await measured.range({ prefix: '/registry/deployments/' });

    const caches = await startCacheSet({
      store: measured,
      resources: [
        {
          keyPrefix: '/registry/deployments',
          qualifiedResource: { group: 'apps', resource: 'deployments' },
          namespaced: true,
        },
      ],
    });
    try {
      expect(await caches.whenReady(5_000)).toBe(true);
      const deployments = { group: 'apps', resource: 'deployments', cache: caches.cacheFor('/registry/deployments') };
      observeWatchCaches(metrics, () => [deployments]);
      recordWatchCacheInitialization(metrics, { group: 'apps', resource: 'deployments' });
      recordWatchCacheDispatch(metrics, { group: 'apps', resource: 'deployments' }, 3);
      const revision = await store.currentRevision();
      await waitUntil(
        'the cache at the store revision',
        () => caches.cacheFor('/registry/deployments').stats().revision >= revision,
        1_000,
        10,
      );
      const text = await metrics.scrape();
      expect(text).toMatch(
        /etcd_request_duration_seconds_count\{operation="create",group="apps",resource="deployments"\} 1/,
      );
      expect(text).toMatch(
        /etcd_request_duration_seconds_count\{operation="get",group="apps",resource="deployments"\} 1/,
      );
      expect(text).toMatch(
        /etcd_request_duration_seconds_count\{operation="list",group="apps",resource="deployments"\} [1-9]/,
      );
      expect(text).toContain(`apiserver_watch_cache_resource_version{group="apps",resource="deployments"} ${revision}`);
      expect(text).toContain('apiserver_storage_objects{resource="deployments.apps"} 1');
      expect(text).toContain('apiserver_watch_cache_initializations_total{group="apps",resource="deployments"} 1');
      expect(text).toContain('apiserver_watch_cache_events_dispatched_total{group="apps",resource="deployments"} 3');
    } finally {
      caches.stop();
    }
  });

  it('counts the compactions this replica runs', async () => {
    const metrics = createApiserverMetrics({ processMetrics: false });
    const compactor = new Compactor({ store, intervalMs: 30, onCompacted: recordCompactions(metrics) });
    compactor.start();
    try {
      // Each interval needs new history to compact: a write each poll until two compactions ran.
      let written = 0;
      await waitUntil(
        'two compactions',
        async () => {
          await store.create(`/registry/pods/a/p${written++}`, Buffer.from('{}'));
          return (await metrics.compactions.get()).values[0].value >= 2;
        },
        2_000,
        10,
      );
    } finally {
      await compactor.stop();
    }
    const text = await metrics.scrape();
    expect(text).toMatch(/capstan_compactions_total [2-9]/);
    expect(text).toMatch(/capstan_compacted_revision [1-9]/);
  });
});

describe('resourceByKeyPrefix', () => {
  const services = { group: '', resource: 'services' };
  const endpoints = { group: '', resource: 'endpoints' };
  const apiServices = { group: 'apiregistration.k8s.io', resource: 'apiservices' };
  const resourceOf = resourceByKeyPrefix(
    new Map([
      ['/registry/services/specs', services],
      ['/registry/services/endpoints', endpoints],
      ['/registry/apiregistration.k8s.io/apiservices', apiServices],
    ]),
  );

  it.each([
    ['/registry/services/specs/default/kubernetes', services],
    ['/registry/services/endpoints/default/kubernetes', endpoints],
    ['/registry/services/specs', services],
    ['/registry/services/specs/', services],
    ['/registry/apiregistration.k8s.io/apiservices/v1.apps', apiServices],
  ])('finds the resource of %s', (key, resource) => {
    expect(resourceOf(key)).toBe(resource);
  });

  it.each(['/registry/services', '/registry/services/specsx/a', 'compact_rev_key', '/', ''])(
    'finds none for %s',
    (key) => {
      expect(resourceOf(key)).toBeUndefined();
    },
  );
});
