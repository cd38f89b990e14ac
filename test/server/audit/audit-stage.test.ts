/**
 * The audit stage in process (plain HTTP, a stand-in for authentication), for what a kubectl
 * session does not show: the Panic stage of a handler's unexpected error, blocking-strict's 500
 * when the first event cannot be kept, the stage's absence when the policy says None; and the
 * log backend's legacy line and its removal of backups older than --audit-log-maxage.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from '../../../server/audit/record/event';
import { openLogBackend } from '../../../server/audit/log-backend';
import type { AuditPolicy, PolicyRule } from '../../../server/audit/record/policy';
import { withAudit } from '../../../server/audit/with-audit';
import { withAuditId } from '../../../server/audit/with-audit-id';
import { statusErrorHandler } from '../../../server/http/errors';
import { createApiserverMetrics } from '../../../server/metrics/apiserver-metrics';
import { plainRequest, startStageServer, type StageServer } from '../metrics/stage-server';
import { retryUntil } from '../../helpers/wait-for';

const rule = (level: PolicyRule['level'], fields: Partial<PolicyRule> = {}): PolicyRule => ({
  level,
  users: [],
  userGroups: [],
  verbs: [],
  resources: [],
  namespaces: [],
  nonResourceURLs: [],
  omitStages: [],
  ...fields,
});
const POLICY: AuditPolicy = {
  omitStages: [],
  omitManagedFields: false,
  rules: [rule('None', { nonResourceURLs: ['/quiet'] }), rule('Metadata')],
};

async function serve(options: { sink: (event: AuditEvent) => boolean }): Promise<StageServer> {
  return startStageServer({
    stagesBeforeUser: [withAuditId()],
    stages: [
      withAudit({ policy: POLICY, sink: options.sink, metrics: createApiserverMetrics({ processMetrics: false }) }),
    ],
    routes: (app) => {
      app.get('/boom', () => {
        throw new TypeError('cannot read properties of undefined');
      });
      app.get(['/fine', '/quiet'], (_req, res) => void res.json({}));
      app.use(statusErrorHandler());
    },
  });
}

async function eventsOf(events: AuditEvent[], count: number): Promise<AuditEvent[]> {
  return retryUntil(
    () => events,
    (seen) => seen.length >= count,
    1_000,
    10,
  );
}

test('an unexpected error in a handler ends in the Panic stage, with the reference`s status', async () => {
  const events: AuditEvent[] = [];
  const server = await serve({ sink: (event) => (events.push(event), true) });
  const errorLog = jest.spyOn(console, 'error').mockImplementation(() => {});
  try {
    expect((await plainRequest(`${server.url}/boom`)).status).toBe(500);
    const [received, panic] = await eventsOf(events, 2);
    expect([received.stage, panic.stage]).toEqual(['RequestReceived', 'Panic']);
    expect(panic.responseStatus).toEqual({
      metadata: {},
      status: 'Failure',
      message: "APIServer panic'd: cannot read properties of undefined",
      reason: 'InternalError',
      code: 500,
    });
    expect(events).toHaveLength(2);
  } finally {
    errorLog.mockRestore();
    await server.close();
  }
});

test('blocking-strict: a request whose first event is refused is answered 500 and not served', async () => {
  const server = await serve({ sink: () => false });
  try {
    const answer = await plainRequest(`${server.url}/fine`);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({
      kind: 'Status',
      reason: 'InternalError',
      message: 'Internal error occurred: failed to store audit event',
    });
  } finally {
    await server.close();
  }
});

test('a request the policy leaves at None makes no event, but still has its Audit-Id', async () => {
  const events: AuditEvent[] = [];
  const server = await serve({ sink: (event) => (events.push(event), true) });
  try {
    const quiet = await plainRequest(`${server.url}/quiet`);
    expect(quiet.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    const fine = await plainRequest(`${server.url}/fine`, { headers: { 'Audit-ID': 'given' } });
    expect(fine.headers['audit-id']).toBe('given');
    expect(
      (await eventsOf(events, 2)).map((event) => [event.auditID, event.stage, event.verb, event.requestURI]),
    ).toEqual([
      ['given', 'RequestReceived', 'get', '/fine'],
      ['given', 'ResponseComplete', 'get', '/fine'],
    ]);
  } finally {
    await server.close();
  }
});

describe('the log backend', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'audit-log-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const event: AuditEvent = {
    kind: 'Event',
    apiVersion: 'audit.k8s.io/v1',
    level: 'Metadata',
    auditID: 'id-1',
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/a/pods?x=1&y=2',
    verb: 'list',
    user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
    sourceIPs: ['10.0.0.1', '127.0.0.1'],
    userAgent: 'kubectl',
    objectRef: { resource: 'pods', namespace: 'a', apiVersion: 'v1' },
    responseStatus: { metadata: {}, code: 200 },
    requestReceivedTimestamp: '2026-11-24T01:41:40.649200Z',
    stageTimestamp: '2026-11-24T01:41:40.650046Z',
  };

  test('legacy: the reference`s one line an event', async () => {
    const path = join(dir, 'audit.log');
    const backend = openLogBackend({
      path,
      format: 'legacy',
      maxSizeMB: 0,
      maxBackups: 0,
      maxAgeDays: 0,
      compress: false,
    });
    await backend.send([event]);
    await backend.close();
    expect(readFileSync(path, 'utf8')).toBe(
      '2026-11-24T01:41:40.6492Z AUDIT: id="id-1" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" groups="\\"devs\\",\\"system:authenticated\\"" ' +
        'as="<self>" asgroups="<lookup>" user-agent="kubectl" namespace="a" uri="/api/v1/namespaces/a/pods?x=1&y=2" response="200"\n',
    );
  });

  test('rotation removes backups older than maxage, by the time in their names', async () => {
    const old = join(dir, 'audit-2020-01-01T00-00-00.000.log');
    const recent = join(
      dir,
      `audit-${new Date(Date.now() - 60_000).toISOString().slice(0, 23).replace(/:/g, '-')}.log`,
    );
    writeFileSync(old, 'old\n');
    writeFileSync(recent, 'recent\n');
    // The name decides, not the file's own time.
    utimesSync(old, new Date(), new Date());
    const backend = openLogBackend({
      path: join(dir, 'audit.log'),
      format: 'json',
      maxSizeMB: 1,
      maxBackups: 0,
      maxAgeDays: 1,
      compress: false,
    });
    const big = { ...event, requestObject: { data: 'x'.repeat(300 * 1024) } };
    for (let i = 0; i < 5; i++) await backend.send([big]);
    await backend.close();
    const files = await retryUntil(
      () => readdirSync(dir).sort(),
      (names) => !names.includes('audit-2020-01-01T00-00-00.000.log'),
      2_000,
      20,
    );
    expect(files).not.toContain('audit-2020-01-01T00-00-00.000.log');
    expect(files).toContain(recent.slice(dir.length + 1));
    expect(files.filter((file) => file.startsWith('audit-'))).toHaveLength(2);
  });
});
