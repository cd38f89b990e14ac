/**
 * Apply and patch through the real kubectl 1.33 against a whole capstan process (SQLite):
 * client-side apply (create, then an edited file), edit, strategic patch, server-side apply
 * with a conflict and its forced resolution, and managedFields after three managers' applies
 * and updates. Expected objects are stated in full (fixtures/apply/*.expected.yaml), with the
 * values the server invents (uid, resourceVersion, timestamps) replaced by placeholders.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startServer, type TestServer } from '../helpers/server';

const FIXTURES = join(__dirname, 'fixtures', 'apply');
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

type Json = Record<string, unknown>;

let server: TestServer;
let scratch: string;

beforeAll(async () => {
  server = await startServer();
  scratch = mkdtempSync(join(tmpdir(), 'capstan-apply-'));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function fixture(name: string): string {
  return join(FIXTURES, name);
}

function expected(name: string): Json {
  return parseYaml(readFileSync(fixture(name), 'utf8')) as Json;
}

/** The object with what the server invents replaced: `<uid>`, `<rv>`, `<time>` (after checking its form). */
function normalized(object: Json): Json {
  const copy = structuredClone(object);
  const metadata = copy.metadata as Json;
  expect(metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
  expect(metadata.resourceVersion).toMatch(/^\d+$/);
  expect(metadata.creationTimestamp).toMatch(RFC3339);
  metadata.uid = '<uid>';
  metadata.resourceVersion = '<rv>';
  metadata.creationTimestamp = '<time>';
  // An apply that changed nothing leaves its entry without a time, as the reference does (the
  // annotation kubectl's first server-side apply records as its own, unchanged).
  for (const entry of (metadata.managedFields ?? []) as Json[]) {
    if (entry.time === undefined) continue;
    expect(entry.time).toMatch(RFC3339);
    entry.time = '<time>';
  }
  // Entries are ordered by operation, then by the second each was written in, then by manager:
  // without their times, the order that does not depend on how fast the machine is.
  const order = (entry: Json) =>
    `${String(entry.operation)}\0${String(entry.manager)}\0${String(entry.subresource ?? '')}`;
  if (Array.isArray(metadata.managedFields))
    (metadata.managedFields as Json[]).sort((a, b) => order(a).localeCompare(order(b)));
  return copy;
}

async function expectObject(path: string, name: string): Promise<void> {
  const actual = normalized(await getJson(path));
  expect(actual).toEqual(expected(name));
}

async function getJson(path: string): Promise<Json> {
  const answer = await server.request('GET', path);
  expect(answer.status).toBe(200);
  return answer.json<Json>();
}

async function kubectlOk(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const result = await server.kubectl(args, { env });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  return result.stdout;
}

describe('client-side apply, edit and strategic patch', () => {
  test('kubectl apply -f creates, with the last-applied annotation', async () => {
    expect(await kubectlOk(['apply', '-f', fixture('web.yaml')])).toBe('deployment.apps/web created\n');
    await expectObject(`${DEPLOYMENTS}/web`, 'web-created.expected.yaml');
  });

  test('kubectl apply -f of an edited file makes the three-way patch: replicas, a removed env var, an added port', async () => {
    expect(await kubectlOk(['apply', '-f', fixture('web-edited.yaml')])).toBe('deployment.apps/web configured\n');
    await expectObject(`${DEPLOYMENTS}/web`, 'web-configured.expected.yaml');
    // The annotation round-trips: kubectl reads back exactly the configuration it applied.
    const lastApplied = await kubectlOk(['apply', 'view-last-applied', 'deployment/web', '-o', 'json']);
    expect(JSON.parse(lastApplied)).toEqual({
      ...parseYaml(readFileSync(fixture('web-edited.yaml'), 'utf8')),
      metadata: { annotations: {}, labels: { app: 'web' }, name: 'web', namespace: 'default' },
    });
    // Applying the same file again changes nothing.
    expect(await kubectlOk(['apply', '-f', fixture('web-edited.yaml')])).toBe('deployment.apps/web unchanged\n');
  });

  test('kubectl edit with an editor script changes the object', async () => {
    const editor = join(scratch, 'edit.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i \'s/image: nginx:1.27/image: nginx:1.28/\' "$1"\n');
    chmodSync(editor, 0o755);
    expect(await kubectlOk(['edit', 'deployment/web'], { EDITOR: editor, KUBE_EDITOR: editor })).toBe(
      'deployment.apps/web edited\n',
    );
    await expectObject(`${DEPLOYMENTS}/web`, 'web-edited.expected.yaml');
  });

  test('kubectl patch --type=strategic merges containers by name', async () => {
    const patch = JSON.stringify({
      spec: {
        template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:1.36', args: ['sleep', '3600'] }] } },
      },
    });
    expect(await kubectlOk(['patch', 'deployment/web', '--type=strategic', '-p', patch])).toBe(
      'deployment.apps/web patched\n',
    );
    await expectObject(`${DEPLOYMENTS}/web`, 'web-patched.expected.yaml');
  });
});

describe('kubectl apply --server-side', () => {
  test('first apply creates; a second manager conflicts on replicas, then takes them with --force-conflicts', async () => {
    expect(await kubectlOk(['apply', '--server-side', '-f', fixture('api.yaml')])).toBe(
      'deployment.apps/api serverside-applied\n',
    );
    await expectObject(`${DEPLOYMENTS}/api`, 'api-applied.expected.yaml');

    const refused = await server.kubectl([
      'apply',
      '--server-side',
      '--field-manager=scaler',
      '-f',
      fixture('api-scaled.yaml'),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas\n');
    expect((await getJson(`${DEPLOYMENTS}/api`)).spec).toMatchObject({ replicas: 2 });

    const forced = [
      'apply',
      '--server-side',
      '--field-manager=scaler',
      '--force-conflicts',
      '-f',
      fixture('api-scaled.yaml'),
    ];
    expect(await kubectlOk(forced)).toBe('deployment.apps/api serverside-applied\n');
    await expectObject(`${DEPLOYMENTS}/api`, 'api-forced.expected.yaml');
  });
});

describe('from client-side to server-side apply', () => {
  test('kubectl apply --server-side after kubectl apply -f changes a value the client-side apply set without a conflict', async () => {
    expect(await kubectlOk(['apply', '-f', fixture('switch.yaml')])).toBe('deployment.apps/switch created\n');
    // kubectl's first server-side apply (force=false) must not conflict with kubectl-client-side-apply
    // over replicas; kubectl then moves that manager's fields to its own (a JSON patch of managedFields),
    // records the annotation as kubectl-last-applied, and applies once more.
    expect(await kubectlOk(['apply', '--server-side', '-f', fixture('switch-server-side.yaml')])).toBe(
      'deployment.apps/switch serverside-applied\n',
    );
    await expectObject(`${DEPLOYMENTS}/switch`, 'switch-server-side.expected.yaml');
    // Another manager is not forgiven: the field is kubectl's now.
    const refused = await server.kubectl([
      'apply',
      '--server-side',
      '--field-manager=other',
      '-f',
      fixture('switch.yaml'),
    ]);
    expect(refused.stderr).toContain('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas\n');
  });

  test('kubectl apply --server-side rewrites the last-applied annotation as Go encodes the applied object', async () => {
    // escaped-server-side.expected-annotations.json is what kube-apiserver 1.34.4 held after the
    // same two commands: keys sorted by their bytes, <, > and & escaped, a final newline.
    expect(await kubectlOk(['apply', '-f', fixture('escaped.yaml')])).toBe('configmap/escaped created\n');
    expect(await kubectlOk(['apply', '--server-side', '-f', fixture('escaped-server-side.yaml')])).toBe(
      'configmap/escaped serverside-applied\n',
    );
    const object = await getJson(`${CONFIGMAPS}/escaped`);
    expect((object.metadata as Json).annotations).toEqual(
      JSON.parse(readFileSync(fixture('escaped-server-side.expected-annotations.json'), 'utf8')),
    );
  });
});

interface Answer {
  readonly status: number;
  readonly body: Json;
}

/** A PATCH as the admin: `body` is sent as JSON (valid YAML for apply). */
async function patch(path: string, contentType: string, body: unknown, query = ''): Promise<Answer> {
  const answer = await server.request('PATCH', `${path}${query}`, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': contentType },
  });
  return { status: answer.status, body: answer.json<Json>() };
}

const APPLY = 'application/apply-patch+yaml';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

function managedFieldsOf(object: Json): Json[] {
  return ((object.metadata as Json).managedFields ?? []) as Json[];
}

/** The entries without their times, which only need the right form. */
function withoutTimes(entries: readonly Json[]): Json[] {
  return entries.map(({ time, ...entry }) => {
    expect(time).toMatch(RFC3339);
    return entry;
  });
}

describe('server-side apply over HTTP', () => {
  const deployment = (name: string, spec: Json, labels?: Record<string, string>): Json => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, ...(labels ? { labels } : {}) },
    spec,
  });

  test('fieldManager is required, and the 415 lists the apply type', async () => {
    const missing = await patch(`${CONFIGMAPS}/x`, APPLY, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x' },
    });
    expect(missing.status).toBe(422);
    expect(missing.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );

    const unknownType = await patch(`${CONFIGMAPS}/x`, 'application/x-unknown', {});
    expect(unknownType.status).toBe(415);
    // A type no PATCH route declares: the router's words, as kube-apiserver 1.34.4's.
    expect(unknownType.body.message).toBe('415: Unsupported Media Type');
  });

  test('apply creates (201), then leaves an unchanged object alone (200, same resourceVersion)', async () => {
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } };
    const created = await patch(`${CONFIGMAPS}/settings`, APPLY, config, '?fieldManager=alice');
    expect(created.status).toBe(201);
    expect(withoutTimes(managedFieldsOf(created.body))).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:a': {} } },
      },
    ]);
    const again = await patch(`${CONFIGMAPS}/settings`, APPLY, config, '?fieldManager=alice');
    expect(again.status).toBe(200);
    expect((again.body.metadata as Json).resourceVersion).toBe((created.body.metadata as Json).resourceVersion);
  });

  test('fields the schema does not declare are refused whatever fieldValidation says; repeated keys follow it', async () => {
    const config = deployment('strict', {
      selector: { matchLabels: { app: 'strict' } },
      template: {
        metadata: { labels: { app: 'strict' } },
        spec: { containers: [{ name: 'c', image: 'busybox', bogus: true }] },
      },
    });
    const undeclared = await patch(
      `${DEPLOYMENTS}/strict`,
      APPLY,
      config,
      '?fieldManager=alice&fieldValidation=Ignore',
    );
    expect(undeclared.status).toBe(400);
    expect(undeclared.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message:
        'failed to create typed patch object (/strict; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="c"].bogus: field not declared in schema',
      reason: 'BadRequest',
      code: 400,
    });

    const repeated = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: repeated\ndata:\n  a: "1"\n  a: "2"\n';
    const strict = await patch(`${CONFIGMAPS}/repeated`, APPLY, repeated, '?fieldManager=alice&fieldValidation=Strict');
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe(
      'error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
    );
    const ignored = await patch(
      `${CONFIGMAPS}/repeated`,
      APPLY,
      repeated,
      '?fieldManager=alice&fieldValidation=Ignore',
    );
    expect(ignored.status).toBe(201);
    expect(ignored.body.data).toEqual({ a: '2' });
  });

  test('the status subresource owns status alone; the main resource cannot set it', async () => {
    const spec = {
      selector: { matchLabels: { app: 'st' } },
      template: { metadata: { labels: { app: 'st' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    };
    const created = await patch(
      `${DEPLOYMENTS}/st`,
      APPLY,
      { ...deployment('st', spec), status: { replicas: 9 } },
      '?fieldManager=alice',
    );
    expect(created.status).toBe(201);
    expect(created.body.status).toEqual({});
    expect(JSON.stringify(managedFieldsOf(created.body))).not.toContain('f:status');

    const status = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'st' },
      status: { replicas: 1, observedGeneration: 1 },
    };
    const applied = await patch(`${DEPLOYMENTS}/st/status`, APPLY, status, '?fieldManager=rollout');
    expect(applied.status).toBe(200);
    expect(applied.body.status).toEqual({ replicas: 1, observedGeneration: 1 });
    expect(withoutTimes(managedFieldsOf(applied.body)).find((entry) => entry.manager === 'rollout')).toEqual({
      manager: 'rollout',
      operation: 'Apply',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } },
      subresource: 'status',
    });
    expect(
      (
        await patch(
          `${DEPLOYMENTS}/absent/status`,
          APPLY,
          { ...status, metadata: { name: 'absent' } },
          '?fieldManager=rollout',
        )
      ).status,
    ).toBe(404);
  });

  test('[{}] clears managedFields; the object stays untracked until an apply, the resetting write too', async () => {
    const path = `${CONFIGMAPS}/settings`;
    const cleared = await patch(
      path,
      'application/merge-patch+json',
      { metadata: { managedFields: [{}] } },
      '?fieldManager=bob',
    );
    expect(cleared.status).toBe(200);
    expect((cleared.body.metadata as Json).managedFields).toBeUndefined();
    const untracked = await patch(path, 'application/merge-patch+json', { data: { c: '3' } }, '?fieldManager=carol');
    expect((untracked.body.metadata as Json).managedFields).toBeUndefined();
    const applied = await patch(
      path,
      APPLY,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { a: '1' } },
      '?fieldManager=alice',
    );
    expect(managedFieldsOf(applied.body).map((entry) => entry.manager)).toContain('alice');
    // The reference's update records nothing on an object whose managedFields it was asked to
    // reset, the change the same request makes included (recorded: managed-fields-requests.json).
    const resetAndChange = await patch(
      path,
      'application/merge-patch+json',
      { metadata: { managedFields: [{}] }, data: { b: '2' } },
      '?fieldManager=bob',
    );
    expect(resetAndChange.body.data).toMatchObject({ b: '2' });
    expect((resetAndChange.body.metadata as Json).managedFields).toBeUndefined();
  });

  test('a write that sets managedFields itself has them stored in the reference order (Apply first, then by time)', async () => {
    const entry = (manager: string, operation: string, time: string, field: string): Json => ({
      manager,
      operation,
      apiVersion: 'v1',
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { [`f:${field}`]: {} } },
    });
    const given = [
      entry('late', 'Update', '2025-01-01T00:00:09Z', 'b'),
      entry('early', 'Update', '2025-01-01T00:00:01Z', 'a'),
      entry('applier', 'Apply', '2025-01-01T00:00:05Z', 'a'),
    ];
    const written = await patch(
      `${CONFIGMAPS}/settings`,
      'application/merge-patch+json',
      { metadata: { managedFields: given } },
      '?fieldManager=bob',
    );
    expect(written.status).toBe(200);
    expect(managedFieldsOf(written.body)).toEqual([given[2], given[1], given[0]]);
  });

  test('managedFields after applies and updates by three managers', async () => {
    const path = `${DEPLOYMENTS}/three`;
    const aliceConfig = (replicas: number): Json =>
      deployment(
        'three',
        {
          replicas,
          selector: { matchLabels: { app: 'three' } },
          template: {
            metadata: { labels: { app: 'three' } },
            spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
          },
        },
        { app: 'three' },
      );
    // alice applies; bob updates a label and the replicas (an update takes them without a conflict).
    expect((await patch(path, APPLY, aliceConfig(1), '?fieldManager=alice')).status).toBe(201);
    expect(
      (
        await patch(
          path,
          'application/merge-patch+json',
          { metadata: { labels: { tier: 'backend' } }, spec: { replicas: 2 } },
          '?fieldManager=bob',
        )
      ).status,
    ).toBe(200);

    // alice's next apply conflicts with bob's replicas; forced, she takes them back.
    const refused = await patch(path, APPLY, aliceConfig(3), '?fieldManager=alice');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "bob" using apps/v1: .spec.replicas',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "bob" using apps/v1', field: '.spec.replicas' },
        ],
      },
    });
    expect((await patch(path, APPLY, aliceConfig(3), '?fieldManager=alice&force=true')).status).toBe(200);

    // bob changes the image with a strategic patch; carol applies an env var to the same container.
    const image = { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } } };
    expect((await patch(path, 'application/strategic-merge-patch+json', image, '?fieldManager=bob')).status).toBe(200);
    const carolConfig = deployment('three', {
      template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'LOG', value: 'debug' }] }] } },
    });
    const last = await patch(path, APPLY, carolConfig, '?fieldManager=carol');
    expect(last.status).toBe(200);

    expect(withoutTimes(managedFieldsOf(last.body))).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"nginx"}': {
                    '.': {},
                    'f:name': {},
                    'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                  },
                },
              },
            },
          },
        },
      },
      {
        manager: 'carol',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': {
            'f:template': {
              'f:spec': {
                'f:containers': {
                  'k:{"name":"nginx"}': {
                    '.': {},
                    'f:env': { 'k:{"name":"LOG"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                    'f:name': {},
                  },
                },
              },
            },
          },
        },
      },
      {
        manager: 'bob',
        operation: 'Update',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:tier': {} } },
          'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { 'f:image': {} } } } } },
        },
      },
    ]);
    expect((last.body.spec as Json).replicas).toBe(3);
  });
});
