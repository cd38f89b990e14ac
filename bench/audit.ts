/**
 * The audit benchmark: what auditing costs a request. The same requests (GET of a ConfigMap
 * from the cache, POST of a new one) against capstan on SQLite without a policy, with a
 * Metadata policy, and with a RequestResponse policy, each writing its log to a file; each a
 * fresh server process, 16 requests in flight.
 *
 * The figure that matters is the server's CPU per request (its user+system time over the step,
 * from /proc), which the client's share of the cores does not blur; requests per second are
 * shown beside it. On a busy machine those differ by more than audit costs, so the audit work of
 * one request is also timed alone, in this process: the policy's rule lookup, the record, its
 * two events (RequestReceived, ResponseComplete) and their JSON lines as the log writes them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Benchmark, BenchmarkContext, ResultRow } from './benchmark';
import { startCapstanProcess } from './capstan-process';
import { httpsTarget, type HttpsCall } from './https-client';
import { measureThroughput, processCpuMs } from './measure';
import { scratchDir } from './scratch';
import { eventLine } from '../server/audit/log-backend';
import type { AuditPolicy } from '../server/audit/record/policy';
import { evaluatePolicy } from '../server/audit/record/policy-rules';
import { RequestAudit } from '../server/audit/record/request-audit';
import { nowMicros } from '../server/audit/record/event';
import type { RequestInfo } from '../server/request/request-info';

const CONCURRENCY = 16;
const MAX_OPERATIONS = 6_000;
const MAX_MS = 10_000;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const POLICIES: ReadonlyArray<{ name: string; level?: string }> = [
  { name: 'no policy' },
  { name: 'Metadata', level: 'Metadata' },
  { name: 'RequestResponse', level: 'RequestResponse' },
];

const STEPS: ReadonlyArray<{ metric: string; call: (index: number) => HttpsCall; expectStatus: number }> = [
  {
    metric: 'GET ConfigMap (cache)',
    call: () => ({ method: 'GET', path: `${CONFIGMAPS}/read-me?resourceVersion=0` }),
    expectStatus: 200,
  },
  {
    metric: 'POST ConfigMap',
    call: (index) => ({
      method: 'POST',
      path: CONFIGMAPS,
      body: Buffer.from(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${index}-${Date.now()}` },
          data: { key: 'value' },
        }),
      ),
    }),
    expectStatus: 201,
  },
];

async function runPolicy(context: BenchmarkContext, policy: { name: string; level?: string }): Promise<ResultRow[]> {
  const dir = scratchDir({ prefix: 'capstan-bench-audit-', inMemory: false });
  const flags: string[] = [];
  if (policy.level) {
    writeFileSync(
      join(dir.path, 'policy.yaml'),
      `apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: ${policy.level}\n`,
    );
    flags.push(
      `--audit-policy-file=${join(dir.path, 'policy.yaml')}`,
      `--audit-log-path=${join(dir.path, 'audit.log')}`,
    );
  }
  const server = await startCapstanProcess({ flags });
  const target = httpsTarget({ url: server.url, credentials: server.pki.client, maxSockets: CONCURRENCY });
  const rows: ResultRow[] = [];
  try {
    const seeded = await target.request({
      method: 'POST',
      path: CONFIGMAPS,
      body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'read-me' } })),
    });
    if (seeded.status !== 201) throw new Error(`seeding answered ${seeded.status}`);
    for (const step of STEPS) {
      context.log(`${policy.name}: ${step.metric}`);
      const cpuBefore = processCpuMs(server.pid);
      const result = await measureThroughput({
        concurrency: CONCURRENCY,
        maxOperations: MAX_OPERATIONS,
        maxMs: MAX_MS,
        operation: async (index) => {
          const answer = await target.request(step.call(index));
          if (answer.status !== step.expectStatus)
            throw new Error(`${step.metric} answered ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
        },
      });
      const cpuUsPerRequest = ((processCpuMs(server.pid) - cpuBefore) * 1000) / result.operations;
      rows.push({
        metric: `${step.metric}: server CPU per request`,
        value: Math.round(cpuUsPerRequest),
        unit: 'µs',
        note: `${result.operations} requests`,
      });
      rows.push({
        metric: `${step.metric}: throughput`,
        value: Math.round(result.perSecond),
        unit: 'req/s',
        note: `${CONCURRENCY} in flight`,
      });
    }
  } finally {
    target.close();
    await server.stop();
    await dir.remove();
  }
  return rows;
}

const IN_PROCESS_ITERATIONS = 200_000;

/** The synchronous audit work of one GET at `level`, the bodies of a small ConfigMap included. */
function auditWorkMicros(level: 'Metadata' | 'RequestResponse'): number {
  const policy: AuditPolicy = {
    omitStages: [],
    omitManagedFields: false,
    rules: [
      {
        level: 'None',
        users: [],
        userGroups: [],
        verbs: [],
        resources: [],
        namespaces: [],
        nonResourceURLs: ['/healthz*', '/readyz'],
        omitStages: [],
      },
      {
        level,
        users: [],
        userGroups: [],
        verbs: [],
        resources: [],
        namespaces: [],
        nonResourceURLs: [],
        omitStages: [],
      },
    ],
  };
  const user = { name: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] };
  const info: RequestInfo = {
    isResourceRequest: true,
    path: `${CONFIGMAPS}/read-me`,
    verb: 'get',
    apiPrefix: 'api',
    apiGroup: '',
    apiVersion: 'v1',
    namespace: 'default',
    resource: 'configmaps',
    subresource: '',
    name: 'read-me',
    parts: ['configmaps', 'read-me'],
  };
  const object = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'read-me',
      namespace: 'default',
      uid: '0c1b4e8e-5d2c-4a43-9f49-1f0a3c2b7d11',
      resourceVersion: '12',
    },
    data: { key: 'value' },
  };
  let bytes = 0;
  const run = () => {
    const config = evaluatePolicy(policy, user, info);
    const audit = new RequestAudit({
      config,
      auditID: 'b6c1f4a2-9f3e-4c55-8a1e-3d2f6b7a9c01',
      requestURI: `${CONFIGMAPS}/read-me?resourceVersion=0`,
      verb: info.verb,
      user,
      sourceIPs: ['127.0.0.1'],
      userAgent: 'kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0',
      objectRef: { resource: 'configmaps', namespace: 'default', name: 'read-me', apiVersion: 'v1' },
      receivedMicros: nowMicros(),
      sink: (event) => ((bytes += eventLine(event, 'json').length), true),
    });
    audit.emit('RequestReceived');
    audit.annotations['authorization.k8s.io/decision'] = 'allow';
    audit.annotations['authorization.k8s.io/reason'] = '';
    audit.setResponseObject(() => object);
    audit.setResponseCode(200);
    audit.emit('ResponseComplete');
  };
  for (let i = 0; i < 10_000; i++) run();
  // CPU time, not wall time: on a shared machine the process waits for a core.
  const started = process.cpuUsage();
  for (let i = 0; i < IN_PROCESS_ITERATIONS; i++) run();
  const used = process.cpuUsage(started);
  const micros = (used.user + used.system) / IN_PROCESS_ITERATIONS;
  if (bytes === 0) throw new Error('nothing was serialized');
  return micros;
}

export const auditBenchmark: Benchmark = {
  name: 'audit',
  description: 'server CPU per request without audit, with a Metadata and with a RequestResponse policy (log file)',
  async run(context) {
    context.report({
      title: 'audit work of one request, in process (no I/O)',
      rows: (['Metadata', 'RequestResponse'] as const).map((level) => ({
        metric: `${level}: rule lookup, record, two events as JSON lines`,
        value: Number(auditWorkMicros(level).toFixed(1)),
        unit: 'µs',
        note: `${IN_PROCESS_ITERATIONS} requests`,
      })),
    });
    for (const policy of POLICIES)
      context.report({ title: `audit: ${policy.name}`, rows: await runPolicy(context, policy) });
  },
};
