/**
 * Audit, read back from the log of a kubectl 1.33 session against a capstan process: one event
 * per request and stage as the policy says, in the reference's format (member order recorded
 * from kube-apiserver 1.34 with the same policy and session), with the user, the verb, the
 * object, the authorization decision, and bodies only at the levels that include them.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { failingStart } from '../helpers/capstan-process';
import { KUBECTL, kubectlConnection, runKubectl, startServer, type TestServer } from '../helpers/server';
import { retryUntil, waitFor } from '../helpers/wait-for';

/** The members of an event, in the order the reference writes them (audit.k8s.io/v1 Event). */
const EVENT_MEMBERS = [
  'kind',
  'apiVersion',
  'level',
  'auditID',
  'stage',
  'requestURI',
  'verb',
  'user',
  'impersonatedUser',
  'sourceIPs',
  'userAgent',
  'objectRef',
  'responseStatus',
  'requestObject',
  'responseObject',
  'requestReceivedTimestamp',
  'stageTimestamp',
  'annotations',
];
const OBJECT_REF_MEMBERS = [
  'resource',
  'namespace',
  'name',
  'uid',
  'apiGroup',
  'apiVersion',
  'resourceVersion',
  'subresource',
];
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

interface AuditEvent {
  readonly level: string;
  readonly auditID: string;
  readonly stage: string;
  readonly requestURI: string;
  readonly verb: string;
  readonly user: { username?: string; groups?: string[] };
  readonly impersonatedUser?: { username: string };
  readonly objectRef?: Record<string, string>;
  readonly responseStatus?: { code: number; reason?: string; status?: string; message?: string };
  readonly requestObject?: Record<string, unknown>;
  readonly responseObject?: Record<string, unknown>;
  readonly annotations?: Record<string, string>;
  readonly [member: string]: unknown;
}

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz", "/healthz*", "/livez*", "/metrics"]
- level: None
  resources: [{group: "", resources: ["events"]}]
- level: RequestResponse
  resources: [{group: "", resources: ["configmaps"]}]
- level: Request
  resources: [{group: "", resources: ["secrets"]}]
  omitStages: ["RequestReceived"]
- level: Metadata
`;

function readEvents(path: string): AuditEvent[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEvent);
}

/** The rotated log's files by name (audit.log and its backups), or undefined when one went away while being read. */
function readLogSnapshot(dir: string): Map<string, string> | undefined {
  const files = readdirSync(dir).filter(
    (file) => file === 'audit.log' || /^audit-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}(-\d+)?\.log$/.test(file),
  );
  try {
    return new Map(files.map((file) => [file, readFileSync(join(dir, file), 'utf8')]));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A log line's event, or undefined while the line is still being written. */
function parseLine(line: string): AuditEvent | undefined {
  try {
    return JSON.parse(line) as AuditEvent;
  } catch {
    return undefined;
  }
}

/** The events matching `predicate`, once there are at least `count` of them (the log is written asynchronously). */
async function eventsOnceThere(
  path: string,
  predicate: (event: AuditEvent) => boolean,
  count = 1,
): Promise<AuditEvent[]> {
  const found = await retryUntil(
    () => readEvents(path).filter(predicate),
    (events) => events.length >= count,
    5_000,
    50,
  );
  if (found.length < count)
    throw new Error(`fewer than ${count} matching events in ${path}:\n${readFileSync(path, 'utf8').slice(-4000)}`);
  return found;
}

const stagesOf = (events: readonly AuditEvent[]) => events.map((event) => event.stage);

describe('an audit log of a kubectl session', () => {
  let dir: string;
  let server: TestServer;
  let logPath: string;
  let aliceKubeconfig: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-audit-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    writeFileSync(join(dir, 'tokens.csv'), 'alice-token,alice,alice-uid,"devs"\n');
    logPath = join(dir, 'logs', 'audit.log');
    server = await startServer({
      flags: [
        `--audit-policy-file=${join(dir, 'policy.yaml')}`,
        `--audit-log-path=${logPath}`,
        `--token-auth-file=${join(dir, 'tokens.csv')}`,
      ],
    });
    const admin = parseYaml(readFileSync(server.kubeconfig, 'utf8')) as {
      clusters: { name: string; cluster: Record<string, string> }[];
    };
    aliceKubeconfig = join(dir, 'alice.kubeconfig');
    writeFileSync(
      aliceKubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: admin.clusters,
        users: [{ name: 'alice', user: { token: 'alice-token' } }],
        contexts: [{ name: 'alice', context: { cluster: admin.clusters[0].name, user: 'alice' } }],
        'current-context': 'alice',
      }),
    );
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const forResource = (resource: string, verb: string) => (event: AuditEvent) =>
    event.objectRef?.resource === resource && event.verb === verb;

  test('create at RequestResponse: both stages, both bodies, the object named, the decision annotated, the reference`s member order', async () => {
    expect((await server.kubectl(['create', 'configmap', 'cm1', '--from-literal=a=b'])).code).toBe(0);
    const events = await eventsOnceThere(logPath, forResource('configmaps', 'create'), 2);
    expect(stagesOf(events)).toEqual(['RequestReceived', 'ResponseComplete']);
    const [received, complete] = events;
    expect(received.auditID).toBe(complete.auditID);
    expect(Object.keys(received)).toEqual(EVENT_MEMBERS.filter((member) => member in received));
    expect(Object.keys(complete)).toEqual(EVENT_MEMBERS.filter((member) => member in complete));
    expect(Object.keys(complete.objectRef!)).toEqual(
      OBJECT_REF_MEMBERS.filter((member) => member in complete.objectRef!),
    );
    // Nothing known yet but the request when it arrives; no annotations before authorization.
    expect(received).not.toHaveProperty('responseStatus');
    expect(received).not.toHaveProperty('annotations');
    expect(received.objectRef).toEqual({ resource: 'configmaps', namespace: 'default', apiVersion: 'v1' });
    expect(complete).toMatchObject({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'RequestResponse',
      verb: 'create',
      requestURI: '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create&fieldValidation=Strict',
      user: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      sourceIPs: ['127.0.0.1'],
      // The name comes from the body, as the reference completes it.
      objectRef: { resource: 'configmaps', namespace: 'default', name: 'cm1', apiVersion: 'v1' },
      responseStatus: { metadata: {}, code: 201 },
      requestObject: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm1' }, data: { a: 'b' } },
      responseObject: { kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default' }, data: { a: 'b' } },
      annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': '' },
    });
    expect(complete.userAgent).toMatch(/^kubectl/);
    expect(complete.requestReceivedTimestamp).toMatch(MICRO_TIME);
    expect(complete.stageTimestamp).toMatch(MICRO_TIME);
    // Go's JSON: `&` in the URI is written escaped, as the reference's log has it.
    const line = readFileSync(logPath, 'utf8')
      .split('\n')
      .find((text) => text.includes(complete.auditID) && text.includes('ResponseComplete'))!;
    expect(line).toContain('fieldManager=kubectl-create\\u0026fieldValidation=Strict');
  });

  test('get, list, patch and delete, each with its own verb and body', async () => {
    expect((await server.kubectl(['get', 'configmap', 'cm1', '-o', 'json'])).code).toBe(0);
    expect((await server.kubectl(['get', 'configmaps'])).code).toBe(0);
    expect((await server.kubectl(['patch', 'configmap', 'cm1', '-p', '{"data":{"c":"d"}}'])).code).toBe(0);
    expect((await server.kubectl(['delete', 'configmap', 'cm1'])).code).toBe(0);

    const [get] = await eventsOnceThere(
      logPath,
      (e) => forResource('configmaps', 'get')(e) && e.stage === 'ResponseComplete',
    );
    expect(get.objectRef).toEqual({ resource: 'configmaps', namespace: 'default', name: 'cm1', apiVersion: 'v1' });
    expect(get).not.toHaveProperty('requestObject');
    expect(get.responseObject).toMatchObject({ kind: 'ConfigMap', data: { a: 'b' } });

    // kubectl asks for a Table: the event keeps the answer as sent.
    const list = (await eventsOnceThere(logPath, forResource('configmaps', 'list'), 2)).filter((e) =>
      e.requestURI.includes('limit=500'),
    );
    expect(stagesOf(list)).toEqual(['RequestReceived', 'ResponseComplete']);
    expect(list[1].responseObject).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });

    const [, patch] = await eventsOnceThere(logPath, forResource('configmaps', 'patch'), 2);
    // The patch as sent, not the patched object.
    expect(patch.requestObject).toEqual({ data: { c: 'd' } });
    expect(patch.responseObject).toMatchObject({ data: { a: 'b', c: 'd' } });

    const [, deleted] = await eventsOnceThere(logPath, forResource('configmaps', 'delete'), 2);
    expect(deleted.requestObject).toEqual({
      kind: 'DeleteOptions',
      apiVersion: 'meta.k8s.io/__internal',
      propagationPolicy: 'Background',
    });
    expect(deleted.responseStatus).toMatchObject({
      metadata: {},
      status: 'Success',
      details: { name: 'cm1', kind: 'configmaps' },
      code: 200,
    });
    expect(deleted.responseObject).toMatchObject({ kind: 'Status', status: 'Success' });
  });

  test('a delete whose options body is `null` deletes, its options logged empty', async () => {
    const json = { 'content-type': 'application/json' };
    const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
      headers: json,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'null-options' } }),
    });
    expect(created.status).toBe(201);
    const deleted = await server.request('DELETE', '/api/v1/namespaces/default/configmaps/null-options', {
      headers: json,
      body: 'null',
    });
    expect(deleted.status).toBe(200);
    const [, event] = await eventsOnceThere(
      logPath,
      (e) => forResource('configmaps', 'delete')(e) && e.objectRef?.name === 'null-options',
      2,
    );
    expect(event.requestObject).toEqual({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/__internal' });
  });

  test('a watch: RequestReceived, ResponseStarted when the stream starts, ResponseComplete when it ends', async () => {
    const child = spawn(
      KUBECTL,
      [...kubectlConnection(server.kubeconfig), 'get', 'configmaps', '--watch', '-n', 'kube-system'],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const started = await eventsOnceThere(
      logPath,
      (e) => forResource('configmaps', 'watch')(e) && e.stage === 'ResponseStarted',
    );
    expect(
      readEvents(logPath)
        .filter((e) => e.auditID === started[0].auditID)
        .map((e) => e.stage),
    ).toEqual(['RequestReceived', 'ResponseStarted']);
    child.kill('SIGTERM');
    await exited;
    const events = await eventsOnceThere(logPath, (e) => e.auditID === started[0].auditID, 3);
    expect(stagesOf(events)).toEqual(['RequestReceived', 'ResponseStarted', 'ResponseComplete']);
    expect(events[1].responseStatus).toEqual({ metadata: {}, code: 200 });
    expect(events[1].annotations).toEqual({
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': '',
    });
    // A stream is never kept as a response object, even at RequestResponse.
    expect(events[2]).not.toHaveProperty('responseObject');
  });

  test('Request level: the request body but not the answer; omitStages drops RequestReceived', async () => {
    expect((await server.kubectl(['create', 'secret', 'generic', 's1', '--from-literal=x=y'])).code).toBe(0);
    const events = await eventsOnceThere(logPath, forResource('secrets', 'create'));
    expect(stagesOf(events)).toEqual(['ResponseComplete']);
    expect(events[0].level).toBe('Request');
    // With its version's defaults, as the reference decodes it.
    expect(events[0].requestObject).toEqual({
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's1' },
      data: { x: 'eQ==' },
      type: 'Opaque',
    });
    expect(events[0]).not.toHaveProperty('responseObject');
  });

  test('a forbidden request: forbid, the Status kept, no bodies at Metadata', async () => {
    const result = await runKubectl(aliceKubeconfig, ['get', 'pods']);
    expect(result.stderr).toContain('User "alice" cannot list resource "pods"');
    const [, complete] = await eventsOnceThere(
      logPath,
      (e) => forResource('pods', 'list')(e) && e.user.username === 'alice',
      2,
    );
    expect(complete).toMatchObject({
      level: 'Metadata',
      user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
      responseStatus: {
        metadata: {},
        status: 'Failure',
        message:
          'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"',
        reason: 'Forbidden',
        details: { kind: 'pods' },
        code: 403,
      },
      annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': '' },
    });
    expect(complete).not.toHaveProperty('requestObject');
    expect(complete).not.toHaveProperty('responseObject');
  });

  test('impersonation: the policy sees who authenticated; the event names who was acted as', async () => {
    await server.kubectl(['get', 'pods', '--as', 'bob']);
    const [received, complete] = await eventsOnceThere(
      logPath,
      (e) => forResource('pods', 'list')(e) && e.user.username === 'kubernetes-admin',
      2,
    );
    expect(received).not.toHaveProperty('impersonatedUser');
    expect(complete.impersonatedUser).toEqual({ username: 'bob', groups: ['system:authenticated'] });
    expect(complete.responseStatus?.code).toBe(403);
  });

  test('a deprecated version is annotated k8s.io/deprecated', async () => {
    expect((await server.kubectl(['get', 'endpoints'])).code).toBe(0);
    const [, complete] = await eventsOnceThere(logPath, forResource('endpoints', 'list'), 2);
    expect(complete.annotations).toEqual({
      'authorization.k8s.io/decision': 'allow',
      'authorization.k8s.io/reason': '',
      'k8s.io/deprecated': 'true',
    });
  });

  test('admission plugins` audit annotations reach the event (a ValidatingAdmissionPolicy`s)', async () => {
    const policy = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'count-keys' },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
        auditAnnotations: [{ key: 'keys', valueExpression: 'string(size(object.data))' }],
      },
    };
    const binding = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'count-keys' },
      spec: { policyName: 'count-keys', validationActions: ['Audit'] },
    };
    expect(
      (
        await server.kubectl(['apply', '-f', '-'], {
          input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [policy, binding] }),
        })
      ).code,
    ).toBe(0);
    // The plugin reads policies from its watch cache: create until one create was judged by it.
    // Until the policy is in the server's cache, creates go unannotated: another one each try.
    let attempt = 0;
    const annotated = await waitFor(
      "an event carrying the policy's annotation",
      async () => {
        await server.kubectl([
          'create',
          'configmap',
          `counted-${attempt++}`,
          '--from-literal=a=1',
          '--from-literal=b=2',
        ]);
        return readEvents(logPath).find((e) => e.annotations?.['count-keys/keys'] !== undefined);
      },
      4_000,
      100,
    );
    expect(annotated).toMatchObject({
      stage: 'ResponseComplete',
      verb: 'create',
      annotations: { 'count-keys/keys': '2', 'authorization.k8s.io/decision': 'allow' },
    });
  });

  test('every answer names its audit ID in Audit-Id; a client`s own Audit-ID is kept', async () => {
    const mine = await server.request('GET', '/api/v1/namespaces/default/pods', {
      headers: { 'Audit-ID': 'my-audit-id-1' },
    });
    expect(mine.headers['audit-id']).toBe('my-audit-id-1');
    expect(stagesOf(await eventsOnceThere(logPath, (e) => e.auditID === 'my-audit-id-1', 2))).toEqual([
      'RequestReceived',
      'ResponseComplete',
    ]);
    // Not audited (the policy says None), still named.
    const health = await server.request('GET', '/readyz');
    expect(health.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(readEvents(logPath).some((e) => e.auditID === health.headers['audit-id'])).toBe(false);
  });

  test('a request that fails authentication: one ResponseStarted event, without a user', async () => {
    const result = await runKubectl(aliceKubeconfig, ['get', 'namespaces', '--token', 'wrong-token']);
    expect(result.code).not.toBe(0);
    const [event] = await eventsOnceThere(logPath, (e) => e.responseStatus?.code === 401);
    expect(event).toMatchObject({
      stage: 'ResponseStarted',
      level: 'Metadata',
      user: {},
      responseStatus: { status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 },
    });
    expect(readEvents(logPath).filter((e) => e.auditID === event.auditID)).toHaveLength(1);
  });

  test('metrics count the events and the levels', async () => {
    const metrics = (await server.request('GET', '/metrics')).body;
    expect(Number(/^apiserver_audit_event_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(20);
    expect(metrics).toMatch(/^apiserver_audit_level_total\{level="RequestResponse"\} [1-9]/m);
    expect(metrics).toMatch(/^apiserver_audit_level_total\{level="None"\} [1-9]/m);
  });
});

describe('the log file', () => {
  test('rotates past --audit-log-maxsize and keeps --audit-log-maxbackup backups', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-rotate-'));
    writeFileSync(join(dir, 'policy.yaml'), POLICY);
    const logPath = join(dir, 'audit.log');
    const server = await startServer({
      flags: [
        `--audit-policy-file=${join(dir, 'policy.yaml')}`,
        `--audit-log-path=${logPath}`,
        '--audit-log-maxsize=1',
        '--audit-log-maxbackup=2',
      ],
    });
    try {
      // Each create logs its 300 KB body twice (request and answer): about 5 MB in all.
      const data = 'x'.repeat(300 * 1024);
      for (let i = 0; i < 8; i++) {
        const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: `big-${i}` },
            data: { blob: data },
          }),
        });
        expect(created.status).toBe(201);
      }
      // The files are read as one snapshot, taken again when a rotation removes a file between
      // the listing and the read: events of the server's own clients go on being logged.
      const snapshot = await retryUntil(
        () => readLogSnapshot(dir) ?? new Map<string, string>(),
        (files) => {
          const backups = [...files.keys()].filter((file) => file !== 'audit.log');
          const written = [...files.values()].flatMap((text) => text.split('\n').filter(Boolean).map(parseLine));
          return (
            backups.length === 2 &&
            written.every((e) => e !== undefined) &&
            written.some((e) => e?.objectRef?.name === 'big-7' && e.stage === 'ResponseComplete')
          );
        },
        5_000,
        50,
      );
      // More than two rotations happened; the oldest backups were removed.
      expect([...snapshot.keys()].filter((file) => file !== 'audit.log')).toHaveLength(2);
      for (const text of snapshot.values()) {
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024 * 1024 + 700 * 1024);
        // Every line of every file is a whole event.
        for (const line of text.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
      }
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a bad policy stops the start with the reference`s words, exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capstan-audit-bad-'));
    try {
      const policy = join(dir, 'policy.yaml');
      writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n');
      const failed = await failingStart([
        '--data-dir',
        dir,
        '--secure-port',
        '0',
        `--audit-policy-file=${policy}`,
        `--audit-log-path=${join(dir, 'audit.log')}`,
      ]);
      expect(failed.code).toBe(2);
      expect(failed.stderr.trim().split('\n').pop()).toBe(
        `capstan: loading audit policy file: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${policy}`,
      );
      expect(failed.stderr).not.toMatch(/\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
