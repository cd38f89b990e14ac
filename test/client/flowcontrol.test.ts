/**
 * flowcontrol.apiserver.k8s.io and the server surface around it on a whole replica, against
 * what kube-apiserver v1.34.4 answered for the same requests: the bootstrap priority levels and
 * flow schemas, their tables, the Dangling condition, the PF headers, the named health checks,
 * componentstatuses, and the autoupdate-spec rules applied at the next start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inProcessServerForSuite, type InProcessServer, startInProcessServer } from '../helpers/in-process-server';
import { retryUntil } from '../helpers/wait-for';

const FLOWCONTROL = '/apis/flowcontrol.apiserver.k8s.io/v1';
const JSON_BODY = { 'content-type': 'application/json' };
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

interface Item {
  metadata: { name: string; uid: string; generation?: number; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
  status?: {
    conditions?: { type: string; status: string; reason: string; message: string; lastTransitionTime: string }[];
  };
}

describe('flowcontrol and the server surface', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-flowcontrol-'));
  let server: InProcessServer;

  beforeAll(async () => {
    server = await startInProcessServer(['--data-dir', dataDir]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const items = async (resource: string): Promise<Item[]> =>
    (await server.request('GET', `${FLOWCONTROL}/${resource}`)).json<{ items: Item[] }>().items;
  const byName = (list: Item[]) => new Map(list.map((item) => [item.metadata.name, item]));

  it('keeps the mandatory and suggested objects as a 1.34 server stores them', async () => {
    const levels = byName(await items('prioritylevelconfigurations'));
    expect([...levels.keys()].sort()).toEqual([
      'catch-all',
      'exempt',
      'global-default',
      'leader-election',
      'node-high',
      'system',
      'workload-high',
      'workload-low',
    ]);
    expect(levels.get('workload-low')?.spec).toEqual({
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 100,
        limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
        lendablePercent: 90,
      },
    });
    expect(levels.get('exempt')?.spec).toEqual({
      type: 'Exempt',
      exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 },
    });
    const schemas = byName(
      await retryUntil(
        () => items('flowschemas'),
        (list) => list.every((item) => (item.status?.conditions ?? []).length > 0),
        30_000,
      ),
    );
    expect(schemas.size).toBe(11);
    for (const item of [...schemas.values(), ...levels.values()])
      expect(item.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
    expect(schemas.get('probes')?.spec).toEqual({
      priorityLevelConfiguration: { name: 'exempt' },
      matchingPrecedence: 2,
      rules: [
        {
          subjects: [
            { kind: 'Group', group: { name: 'system:unauthenticated' } },
            { kind: 'Group', group: { name: 'system:authenticated' } },
          ],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }],
        },
      ],
    });
    const managers = (await server.request('GET', `${FLOWCONTROL}/flowschemas/catch-all`)).json<{
      metadata: { managedFields: { manager: string; subresource?: string }[] };
    }>().metadata.managedFields;
    // Entries of one operation are ordered by time, then by manager: the second in which each write landed decides.
    expect(managers.map(({ manager, subresource }) => [manager, subresource]).sort()).toEqual([
      ['api-priority-and-fairness-config-consumer-v1', 'status'],
      ['api-priority-and-fairness-config-producer-v1', undefined],
    ]);
    expect(schemas.get('catch-all')?.status?.conditions).toEqual([
      {
        type: 'Dangling',
        status: 'False',
        lastTransitionTime: expect.any(String),
        reason: 'Found',
        message: 'This FlowSchema references the PriorityLevelConfiguration object named "catch-all" and it exists',
      },
    ]);

    const table = await server.kubectl(['get', 'flowschemas']);
    expect(
      table.stdout
        .split('\n')
        .slice(0, 3)
        .map((line) => line.split(/\s+/).filter((cell, i) => i !== 4)),
    ).toEqual([
      ['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'MISSINGPL'],
      ['exempt', 'exempt', '1', '<none>', 'False'],
      ['probes', 'exempt', '2', '<none>', 'False'],
    ]);
    const levelTable = await server.kubectl([
      'get',
      'prioritylevelconfigurations',
      'catch-all',
      'global-default',
      '--no-headers',
    ]);
    expect(levelTable.stdout.split('\n').map((line) => line.split(/\s+/).slice(0, 6))).toEqual([
      ['catch-all', 'Limited', '5', '<none>', '<none>', '<none>'],
      ['global-default', 'Limited', '20', '128', '6', '50'],
      [''],
    ]);
  });

  it('marks a flow schema Dangling while its priority level is missing', async () => {
    const created = await server.request('POST', `${FLOWCONTROL}/flowschemas`, {
      body: JSON.stringify({ metadata: { name: 'f1' }, spec: { priorityLevelConfiguration: { name: 'nope' } } }),
      headers: JSON_BODY,
    });
    expect(created.status).toBe(201);
    expect(created.json<Item>().spec).toEqual({
      priorityLevelConfiguration: { name: 'nope' },
      matchingPrecedence: 1000,
    });
    const read = async () =>
      (await server.request('GET', `${FLOWCONTROL}/flowschemas/f1`)).json<Item>().status?.conditions?.[0];
    expect(await retryUntil(read, (condition) => condition?.status === 'True', 30_000)).toMatchObject({
      type: 'Dangling',
      status: 'True',
      reason: 'NotFound',
      message:
        'This FlowSchema references the PriorityLevelConfiguration object named "nope" but there is no such object',
    });
    const level = await server.request('POST', `${FLOWCONTROL}/prioritylevelconfigurations`, {
      body: JSON.stringify({
        metadata: { name: 'nope' },
        spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } },
      }),
      headers: JSON_BODY,
    });
    expect(level.json<Item>().spec).toEqual({
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 30,
        limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
        lendablePercent: 0,
      },
    });
    expect(await retryUntil(read, (condition) => condition?.status === 'False', 30_000)).toMatchObject({
      reason: 'Found',
    });
  });

  it('answers with the uids of the flow schema and priority level that classified the request', async () => {
    const schemas = byName(await items('flowschemas'));
    const levels = byName(await items('prioritylevelconfigurations'));
    const answer = await server.request('GET', '/api/v1/namespaces/default');
    expect(answer.headers['x-kubernetes-pf-flowschema-uid']).toBe(schemas.get('exempt')?.metadata.uid);
    expect(answer.headers['x-kubernetes-pf-prioritylevel-uid']).toBe(levels.get('exempt')?.metadata.uid);
    const metrics = (await server.request('GET', '/metrics')).body;
    expect(metrics).toMatch(
      /^apiserver_flowcontrol_dispatched_requests_total\{flow_schema="exempt",priority_level="exempt"\} [1-9]/m,
    );
    // ceil(600 seats × shares / 275 shares): the bootstrap levels' 245 and the test's level `nope` (30), as the reference shares them.
    expect(metrics).toMatch(/^apiserver_flowcontrol_nominal_limit_seats\{priority_level="workload-low"\} 219$/m);
    expect(metrics).toMatch(/^apiserver_flowcontrol_nominal_limit_seats\{priority_level="exempt"\} 0$/m);
    expect(metrics).toMatch(
      /^apiserver_flowcontrol_current_executing_requests\{flow_schema="exempt",priority_level="exempt"\} 1$/m,
    );
    expect(metrics).toMatch(
      /^apiserver_flowcontrol_request_wait_duration_seconds_bucket\{flow_schema="exempt",priority_level="exempt",execute="true",le="0.005"\} [1-9]/m,
    );
  });

  it('names its health checks as the reference does, one path per check, with exclusions', async () => {
    const healthz = await server.request('GET', '/healthz?verbose');
    expect(healthz.body.split('\n')).toEqual([
      '[+]ping ok',
      '[+]log ok',
      '[+]etcd ok',
      '[+]poststarthook/start-apiserver-admission-initializer ok',
      '[+]poststarthook/generic-apiserver-start-informers ok',
      '[+]poststarthook/priority-and-fairness-config-consumer ok',
      '[+]poststarthook/priority-and-fairness-filter ok',
      '[+]poststarthook/start-apiextensions-informers ok',
      '[+]poststarthook/start-apiextensions-controllers ok',
      '[+]poststarthook/crd-informer-synced ok',
      '[+]poststarthook/start-system-namespaces-controller ok',
      '[+]poststarthook/start-cluster-authentication-info-controller ok',
      '[+]poststarthook/start-kube-apiserver-identity-lease-controller ok',
      '[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector ok',
      '[+]poststarthook/start-service-ip-repair-controllers ok',
      '[+]poststarthook/rbac/bootstrap-roles ok',
      '[+]poststarthook/scheduling/bootstrap-system-priority-classes ok',
      '[+]poststarthook/priority-and-fairness-config-producer ok',
      '[+]poststarthook/bootstrap-controller ok',
      '[+]poststarthook/start-kubernetes-service-cidr-controller ok',
      '[+]poststarthook/start-kube-aggregator-informers ok',
      '[+]poststarthook/apiservice-status-local-available-controller ok',
      '[+]poststarthook/apiservice-status-remote-available-controller ok',
      '[+]poststarthook/apiservice-registration-controller ok',
      '[+]poststarthook/apiservice-discovery-controller ok',
      '[+]poststarthook/kube-apiserver-autoregistration ok',
      '[+]autoregister-completion ok',
      '[+]poststarthook/apiservice-openapi-controller ok',
      '[+]poststarthook/apiservice-openapiv3-controller ok',
      'healthz check passed',
      '',
    ]);
    const readyz = await server.request('GET', '/readyz?verbose&exclude=etcd');
    expect(readyz.body.split('\n').slice(0, 6)).toEqual([
      '[+]ping ok',
      '[+]log ok',
      '[+]etcd excluded: ok',
      '[+]etcd-readiness ok',
      '[+]informer-sync ok',
      '[+]poststarthook/start-apiserver-admission-initializer ok',
    ]);
    const one = await server.request('GET', '/livez/poststarthook/priority-and-fairness-config-producer');
    expect([one.status, one.body]).toEqual([200, 'ok']);
  });

  it('lists componentstatuses as a 1.34 server without a scheduler or controller manager does', async () => {
    const listed = await server.kubectl(['get', 'componentstatuses']);
    expect(listed.stderr).toBe('Warning: v1 ComponentStatus is deprecated in v1.19+\n');
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.replace(/\s+$/, ''));
    expect(rows[0].split(/\s+/)).toEqual(['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
    expect(rows.slice(1).map((row) => row.split(/\s+/).slice(0, 2))).toEqual([
      ['scheduler', 'Unhealthy'],
      ['controller-manager', 'Unhealthy'],
      ['etcd-0', 'Healthy'],
    ]);
    expect(rows[1]).toContain(
      'Get "https://127.0.0.1:10259/healthz": dial tcp 127.0.0.1:10259: connect: connection refused',
    );
    const missing = await server.request('GET', '/api/v1/componentstatuses/nope');
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({
      message: 'componentstatus "nope" not found',
      details: { name: 'nope', kind: 'componentstatus' },
    });
    const selected = await server.request('GET', '/api/v1/componentstatuses?fieldSelector=metadata.name%3Detcd-0');
    expect(selected.json<{ items: unknown[] }>().items).toEqual([
      { metadata: { name: 'etcd-0' }, conditions: [{ type: 'Healthy', status: 'True', message: 'ok' }] },
    ]);
  });

  it('applies the autoupdate-spec rules at the next start', async () => {
    const patch = (resource: string, body: object) =>
      server.request('PATCH', `${FLOWCONTROL}/${resource}`, { body: JSON.stringify(body), headers: MERGE_PATCH });
    // Tuned by the administrator, who took it over: stays.
    expect(
      (
        await patch('prioritylevelconfigurations/global-default', {
          metadata: { annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } },
          spec: { limited: { nominalConcurrencyShares: 21 } },
        })
      ).status,
    ).toBe(200);
    // Tuned but still the server's: restored.
    expect(
      (await patch('prioritylevelconfigurations/workload-low', { spec: { limited: { nominalConcurrencyShares: 99 } } }))
        .status,
    ).toBe(200);
    // Annotation lost but never changed since creation: taken back.
    expect((await patch('prioritylevelconfigurations/system', { metadata: { annotations: null } })).status).toBe(200);
    // Unknown to the server but marked as its own: removed.
    const stale = {
      metadata: { name: 'stale', annotations: { 'apf.kubernetes.io/autoupdate-spec': 'true' } },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } },
    };
    expect(
      (
        await server.request('POST', `${FLOWCONTROL}/prioritylevelconfigurations`, {
          body: JSON.stringify(stale),
          headers: JSON_BODY,
        })
      ).status,
    ).toBe(201);
    expect((await server.request('DELETE', `${FLOWCONTROL}/flowschemas/probes`)).status).toBe(200);

    await server.stop();
    server = await startInProcessServer(['--data-dir', dataDir]);

    const levels = byName(await items('prioritylevelconfigurations'));
    expect(
      (levels.get('global-default')?.spec.limited as { nominalConcurrencyShares: number }).nominalConcurrencyShares,
    ).toBe(21);
    expect(
      (levels.get('workload-low')?.spec.limited as { nominalConcurrencyShares: number }).nominalConcurrencyShares,
    ).toBe(100);
    expect(levels.get('system')?.metadata.annotations).toEqual({ 'apf.kubernetes.io/autoupdate-spec': 'true' });
    expect(levels.has('stale')).toBe(false);
    expect(levels.has('nope')).toBe(true);
    expect(byName(await items('flowschemas')).has('probes')).toBe(true);
  }, 60_000);
});

describe('with --enable-priority-and-fairness=false', () => {
  const server = inProcessServerForSuite(['--enable-priority-and-fairness=false']);

  it('limits with the in-flight pools, keeps no bootstrap configuration and registers no APF hooks', async () => {
    const answer = await server.request('GET', '/api/v1/namespaces/default');
    expect(answer.headers['x-kubernetes-pf-flowschema-uid']).toBeUndefined();
    expect((await server.request('GET', `${FLOWCONTROL}/flowschemas`)).json<{ items: unknown[] }>().items).toEqual([]);
    expect((await server.request('GET', '/healthz?verbose')).body).not.toContain('priority-and-fairness');
  });
});
