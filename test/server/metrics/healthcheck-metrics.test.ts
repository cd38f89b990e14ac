/**
 * `/metrics/slis`, as kube-apiserver 1.34.4 serves it (asked on 2026-11-29): each health check's
 * last result and a count of results, by endpoint, recorded by whole-endpoint runs only; and,
 * with `--profiling` (the default), DELETE resets it and `/metrics`.
 */
import { inProcessServerForSuite, type SuiteServer } from '../../helpers/in-process-server';

const server = inProcessServerForSuite();
const withoutProfiling = inProcessServerForSuite(['--profiling=false']);

async function slis(on: SuiteServer = server): Promise<string> {
  const answer = await on.request('GET', '/metrics/slis');
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return answer.body;
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const ETCD_READYZ = 'kubernetes_healthchecks_total{name="etcd",status="success",type="readyz"}';

it('records each check of a whole endpoint run, by endpoint, with the reference names and labels', async () => {
  expect(await slis()).toMatch(/^process_start_time_seconds \d+/m);
  await server.request('DELETE', '/metrics/slis');
  for (const path of ['/readyz', '/readyz', '/livez', '/healthz?verbose']) {
    expect((await server.request('GET', path)).status).toBe(200);
  }
  const text = await slis();
  expect(text).toContain(
    '# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.',
  );
  expect(text).toContain('# TYPE kubernetes_healthchecks_total counter');
  expect(sample(text, 'kubernetes_healthcheck{name="etcd",type="readyz"}')).toBe(1);
  expect(sample(text, 'kubernetes_healthcheck{name="informer-sync",type="readyz"}')).toBe(1);
  expect(sample(text, 'kubernetes_healthcheck{name="shutdown",type="readyz"}')).toBe(1);
  expect(sample(text, 'kubernetes_healthcheck{name="ping",type="healthz"}')).toBe(1);
  expect(sample(text, ETCD_READYZ)).toBe(2);
  expect(sample(text, 'kubernetes_healthchecks_total{name="etcd",status="success",type="livez"}')).toBe(1);
  // `informer-sync` is a readiness check only.
  expect(sample(text, 'kubernetes_healthcheck{name="informer-sync",type="livez"}')).toBeUndefined();
});

it('does not record a single check path or an excluded check', async () => {
  const before = sample(await slis(), ETCD_READYZ) ?? 0;
  expect((await server.request('GET', '/readyz/etcd')).status).toBe(200);
  expect((await server.request('GET', '/readyz?exclude=etcd')).status).toBe(200);
  expect(sample(await slis(), ETCD_READYZ) ?? 0).toBe(before);
});

it('resets on DELETE, /metrics too, when profiling is on', async () => {
  await server.request('GET', '/readyz');
  const reset = await server.request('DELETE', '/metrics/slis');
  expect({ status: reset.status, body: reset.body }).toEqual({ status: 200, body: 'metrics reset\n' });
  // Nothing recorded since: the reference (asked on 2026-11-30) answers any method with 200, no
  // body and no Content-Type, until the next health check runs.
  for (const method of ['GET', 'OPTIONS', 'PROPFIND']) {
    const empty = await server.request(method, '/metrics/slis');
    expect({ status: empty.status, type: empty.headers['content-type'], body: empty.body }).toEqual({
      status: 200,
      type: undefined,
      body: '',
    });
  }
  await server.request('GET', '/readyz');
  const recorded = await slis();
  expect(sample(recorded, ETCD_READYZ)).toBeGreaterThanOrEqual(1);
  // The start time is set once, at start: the reset took it for good.
  expect(recorded).not.toContain('process_start_time_seconds');

  expect((await server.request('GET', '/api/v1/namespaces')).status).toBe(200);
  const listed = /^apiserver_request_total\{verb="LIST",[^}]*resource="namespaces"/m;
  const cpu = /^process_cpu_seconds_total ([\d.e+-]+)$/m;
  const before = (await server.request('GET', '/metrics')).body;
  expect(before).toMatch(listed);
  const resetAll = await server.request('DELETE', '/metrics');
  expect(resetAll.body).toBe('metrics reset\n');
  const after = (await server.request('GET', '/metrics')).body;
  expect(after).not.toMatch(listed);
  // The process's own figures are read, not counted: a reset leaves them whole.
  expect(Number(cpu.exec(after)?.[1])).toBeGreaterThanOrEqual(Number(cpu.exec(before)?.[1]));
});

it('serves DELETE like GET when profiling is off, as the reference installs it without reset', async () => {
  await withoutProfiling.request('GET', '/readyz');
  const answer = await withoutProfiling.request('DELETE', '/metrics/slis');
  expect(answer.status).toBe(200);
  expect(sample(answer.body, ETCD_READYZ)).toBeGreaterThanOrEqual(1);
});
