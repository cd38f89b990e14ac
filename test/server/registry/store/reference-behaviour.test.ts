/**
 * Behaviours the reference e2e suite found wrong, each with what a v1.34.4 kube-apiserver
 * answered to the same request (asked while writing these): which metadata a status write
 * keeps per kind, what a DELETE answers, how a Pod's grace period is honoured.
 */
import type { ManagedFieldsEntry } from '../../../../server/fieldmanager/managed-fields-entry';
import type { KubeObject } from '../../../../api/objects';
import {
  openTestStore,
  serveResourceApi,
  serviceHooksFor,
  type ServedApi,
  type TestStore,
} from '../../../helpers/in-process-api';

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor, { hooksFor: await serviceHooksFor(testStore) });
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

interface Answer {
  status: number;
  body: any; // JSON from the server under test
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const init: RequestInit = { method, headers: { 'user-agent': 'behaviour-test/v1.0 (linux)' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = contentType;
  }
  const response = await fetch(api.base + path, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function create(path: string, object: KubeObject): Promise<KubeObject> {
  const created = await call('POST', path, object);
  expect(created.status).toBe(201);
  return created.body;
}

const POD_SPEC = { containers: [{ name: 'c', image: 'nginx' }] };
const OWNER = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '0a3d95d0-2c43-4a25-9d6b-1b0e4c1f3c33' };

/** The metadata patch sent through /status to every kind below. */
const STATUS_META_PATCH = {
  metadata: { annotations: { x: 'y' }, labels: { l: 'v' }, finalizers: ['example.com/f'], ownerReferences: [OWNER] },
};

async function patchStatus(path: string): Promise<KubeObject> {
  const answer = await call('PATCH', `${path}/status`, STATUS_META_PATCH, 'application/merge-patch+json');
  expect(answer.status).toBe(200);
  const stored = await call('GET', path);
  expect(stored.body.metadata).toEqual(answer.body.metadata);
  return answer.body;
}

describe('metadata a status write changes, per kind (as the reference answered)', () => {
  it('a Namespace takes annotations, labels, finalizers and owner references through /status', async () => {
    await create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'status-ns' } });
    const patched = await patchStatus('/api/v1/namespaces/status-ns');
    expect(patched.metadata.annotations).toEqual({ x: 'y' });
    expect(patched.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'status-ns', l: 'v' });
    expect(patched.metadata.finalizers).toEqual(['example.com/f']);
    expect(patched.metadata.ownerReferences).toEqual([OWNER]);
  });

  it('a Deployment takes annotations (the revision) but keeps its labels', async () => {
    const path = '/apis/apps/v1/namespaces/default/deployments';
    const template = { metadata: { labels: { app: 'd' } }, spec: POD_SPEC };
    await create(path, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'status-deploy', labels: { app: 'd' } },
      spec: { selector: { matchLabels: { app: 'd' } }, template },
    });
    const patched = await patchStatus(`${path}/status-deploy`);
    expect(patched.metadata.annotations).toEqual({ x: 'y' });
    expect(patched.metadata.labels).toEqual({ app: 'd' });
    expect(patched.metadata.finalizers).toEqual(['example.com/f']);
    expect(patched.metadata.ownerReferences).toEqual([OWNER]);
    expect(patched.metadata.generation).toBe(1);
  });

  it('a Pod takes annotations and labels but keeps its owner references', async () => {
    const path = '/api/v1/namespaces/default/pods';
    await create(path, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'status-pod', labels: { run: 'p' } },
      spec: POD_SPEC,
    });
    const patched = await patchStatus(`${path}/status-pod`);
    expect(patched.metadata.annotations).toEqual({ x: 'y' });
    expect(patched.metadata.labels).toEqual({ run: 'p', l: 'v' });
    expect(patched.metadata.finalizers).toEqual(['example.com/f']);
    expect(patched.metadata.ownerReferences).toBeUndefined();
  });

  it('a Node and a Service take all of it', async () => {
    await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'status-node' } });
    const node = await patchStatus('/api/v1/nodes/status-node');
    expect(node.metadata).toMatchObject(STATUS_META_PATCH.metadata);
    const path = '/api/v1/namespaces/default/services';
    await create(path, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'status-svc' },
      spec: { clusterIP: 'None', ports: [{ port: 80 }] },
    });
    const service = await patchStatus(`${path}/status-svc`);
    expect(service.metadata).toMatchObject(STATUS_META_PATCH.metadata);
  });

  it('a VolumeAttachment keeps all of it (ResetObjectMetaForStatus)', async () => {
    const path = '/apis/storage.k8s.io/v1/volumeattachments';
    await create(path, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'status-va' },
      spec: { attacher: 'x.example.com', nodeName: 'n', source: { persistentVolumeName: 'pv' } },
    });
    const patched = await patchStatus(`${path}/status-va`);
    expect(patched.metadata.annotations).toBeUndefined();
    expect(patched.metadata.labels).toBeUndefined();
    expect(patched.metadata.finalizers).toBeUndefined();
    expect(patched.metadata.ownerReferences).toBeUndefined();
  });
});

describe('what a DELETE answers (the reference: ReturnDeletedObject per kind)', () => {
  it('a Service, ServiceAccount and PersistentVolumeClaim answer the deleted object; a ConfigMap and a Secret a Status', async () => {
    const ns = '/api/v1/namespaces/default';
    await create(`${ns}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'gone-svc' },
      spec: { clusterIP: 'None', ports: [{ port: 80 }] },
    });
    await create(`${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'gone-sa' } });
    const claim = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
    await create(`${ns}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'gone-pvc' },
      spec: claim,
    });
    await create(`${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone-cm' } });
    await create(`${ns}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'gone-secret' } });
    const kinds: Record<string, string> = {};
    for (const path of [
      'services/gone-svc',
      'serviceaccounts/gone-sa',
      'persistentvolumeclaims/gone-pvc',
      'configmaps/gone-cm',
      'secrets/gone-secret',
    ]) {
      const answer = await call('DELETE', `${ns}/${path}`);
      expect(answer.status).toBe(200);
      kinds[path] = answer.body.kind;
      expect((await call('GET', `${ns}/${path}`)).status).toBe(404);
    }
    expect(kinds).toEqual({
      'services/gone-svc': 'Service',
      'serviceaccounts/gone-sa': 'ServiceAccount',
      'persistentvolumeclaims/gone-pvc': 'PersistentVolumeClaim',
      'configmaps/gone-cm': 'Status',
      'secrets/gone-secret': 'Status',
    });
  });
});

describe("a Pod's graceful deletion (as the reference answered)", () => {
  const PODS = '/api/v1/namespaces/default/pods';

  function secondsAhead(timestamp: string): number {
    return (Date.parse(timestamp) - Date.now()) / 1000;
  }

  it('a Pod no node runs goes at once, and the answer carries the deletion marks', async () => {
    await create(PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'unscheduled' }, spec: POD_SPEC });
    const answer = await call('DELETE', `${PODS}/unscheduled?gracePeriodSeconds=30`);
    expect(answer.status).toBe(200);
    expect(answer.body.kind).toBe('Pod');
    expect(answer.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(Math.abs(secondsAhead(answer.body.metadata.deletionTimestamp))).toBeLessThan(3);
    expect(answer.body.metadata.generation).toBe(2);
    expect((await call('GET', `${PODS}/unscheduled`)).status).toBe(404);
  });

  it('a Pod on a node lingers for its grace period, which a later deletion may only shorten', async () => {
    await create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'on-node' },
      spec: { ...POD_SPEC, nodeName: 'n1' },
    });
    const first = await call('DELETE', `${PODS}/on-node`);
    expect(first.status).toBe(200);
    expect(first.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(secondsAhead(first.body.metadata.deletionTimestamp)).toBeGreaterThan(27);
    expect(first.body.metadata.generation).toBe(2);
    const lingering = await call('GET', `${PODS}/on-node`);
    expect(lingering.status).toBe(200);
    expect(lingering.body.metadata.deletionGracePeriodSeconds).toBe(30);

    // A status write during the grace period does not remove it.
    const status = await call(
      'PATCH',
      `${PODS}/on-node/status`,
      { status: { phase: 'Running' } },
      'application/merge-patch+json',
    );
    expect(status.status).toBe(200);
    expect((await call('GET', `${PODS}/on-node`)).status).toBe(200);

    const shorter = await call('DELETE', `${PODS}/on-node?gracePeriodSeconds=5`);
    expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(5);
    expect(secondsAhead(shorter.body.metadata.deletionTimestamp)).toBeLessThan(6);
    expect(shorter.body.metadata.generation).toBe(2);
    const longer = await call('DELETE', `${PODS}/on-node?gracePeriodSeconds=20`);
    expect(longer.status).toBe(200);
    expect(longer.body.metadata.deletionGracePeriodSeconds).toBe(5);

    const confirmed = await call('DELETE', `${PODS}/on-node?gracePeriodSeconds=0`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.kind).toBe('Pod');
    expect(confirmed.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await call('GET', `${PODS}/on-node`)).status).toBe(404);
  });

  it('a negative grace period is taken as 1', async () => {
    await create(PODS, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'negative' },
      spec: { ...POD_SPEC, nodeName: 'n1' },
    });
    const answer = await call('DELETE', `${PODS}/negative?gracePeriodSeconds=-3`);
    expect(answer.body.metadata.deletionGracePeriodSeconds).toBe(1);
    expect((await call('DELETE', `${PODS}/negative?gracePeriodSeconds=0`)).status).toBe(200);
  });
});

describe('managedFields of a create (as the reference recorded them)', () => {
  async function createAs(userAgent: string | undefined, path: string, object: KubeObject): Promise<KubeObject> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (userAgent !== undefined) headers['user-agent'] = userAgent;
    const response = await fetch(api.base + path, { method: 'POST', headers, body: JSON.stringify(object) });
    expect(response.status).toBe(201);
    return (await response.json()) as KubeObject;
  }

  function entriesOf(object: KubeObject): ManagedFieldsEntry[] {
    return (object.metadata.managedFields ?? []) as ManagedFieldsEntry[];
  }

  function managersOf(object: KubeObject): unknown[] {
    return entriesOf(object).map((entry) => [entry.manager, entry.operation]);
  }

  it('a request without fieldManager or User-Agent is manager "unknown"', async () => {
    // fetch sends its own User-Agent unless one is given; an empty one is none.
    const none = await createAs('', '/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'no-agent' },
      data: { a: 'b' },
    });
    expect(managersOf(none)).toEqual([['unknown', 'Update']]);
    const emptyPrefix = await createAs('/x', '/api/v1/namespaces/default/configmaps?fieldManager=', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'empty-prefix' },
      data: { a: 'b' },
    });
    expect(managersOf(emptyPrefix)).toEqual([['unknown', 'Update']]);
  });

  it('an empty map or list the Go type leaves out is no field; an object left with no owner stays untracked', async () => {
    const path = '/api/v1/namespaces/default/configmaps';
    const created = await createAs('', path, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'empties', labels: { a: 'x' }, annotations: {}, finalizers: [] },
      data: {},
    });
    expect(entriesOf(created).map((entry) => entry.fieldsV1)).toEqual([
      { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } },
    ]);
    // Removing the last label leaves `labels: {}`, which is no field: the only entry goes.
    const unlabelled = await call(
      'PATCH',
      `${path}/empties`,
      { metadata: { labels: { a: null } } },
      'application/strategic-merge-patch+json',
    );
    expect(unlabelled.status).toBe(200);
    expect(unlabelled.body.metadata.managedFields).toBeUndefined();
    // The reference tracks no update of an object nobody owns anything of.
    const updated = await call('PUT', `${path}/empties`, { ...unlabelled.body, data: { k: 'v' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ k: 'v' });
    expect(updated.body.metadata.managedFields).toBeUndefined();
  });

  it("the server's own fields are nobody's: a Namespace's finalizers and phase", async () => {
    const namespace = await createAs('kubectl-create/v1.33.0', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'owned-ns' },
      spec: {},
      status: {},
    });
    expect(entriesOf(namespace).map((entry) => entry.fieldsV1)).toEqual([
      { 'f:metadata': { 'f:labels': { '.': {}, 'f:kubernetes.io/metadata.name': {} } } },
    ]);
  });

  it("a Service's IP families", async () => {
    const service = await createAs('kubectl-create/v1.33.0', '/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'owned-svc', labels: { app: 's1' } },
      spec: {
        ports: [{ name: '80-80', port: 80, protocol: 'TCP', targetPort: 80 }],
        selector: { app: 's1' },
        type: 'ClusterIP',
        clusterIP: 'None',
      },
      status: { loadBalancer: {} },
    });
    const spec = service.spec as Record<string, unknown>;
    expect(spec.ipFamilies).toEqual(['IPv4']);
    expect(spec.ipFamilyPolicy).toBe('SingleStack');
    const fields = entriesOf(service)[0]?.fieldsV1 as Record<string, Record<string, unknown>>;
    // The reference's answer, but for f:clusterIP, which this request sent itself.
    expect(fields['f:spec']).toEqual({
      'f:clusterIP': {},
      'f:internalTrafficPolicy': {},
      'f:ports': {
        '.': {},
        'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:name': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} },
      },
      'f:selector': {},
      'f:sessionAffinity': {},
      'f:type': {},
    });
  });

  it("a Pod's status phase and qosClass", async () => {
    const pod = await createAs('kubectl-run/v1.33.0', '/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'owned-pod', labels: { run: 'p1' } },
      spec: {
        containers: [{ name: 'p1', image: 'nginx', resources: {} }],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
      },
      status: {},
    });
    expect(entriesOf(pod).map((entry) => entry.fieldsV1)).toEqual([
      {
        'f:metadata': { 'f:labels': { '.': {}, 'f:run': {} } },
        'f:spec': {
          'f:containers': {
            'k:{"name":"p1"}': {
              '.': {},
              'f:image': {},
              'f:imagePullPolicy': {},
              'f:name': {},
              'f:resources': {},
              'f:terminationMessagePath': {},
              'f:terminationMessagePolicy': {},
            },
          },
          'f:dnsPolicy': {},
          'f:enableServiceLinks': {},
          'f:restartPolicy': {},
          'f:schedulerName': {},
          'f:securityContext': {},
          'f:terminationGracePeriodSeconds': {},
        },
      },
    ]);
  });
});

describe('events.k8s.io Events are core v1 Events in storage (as the reference stores them)', () => {
  it('one written through events.k8s.io/v1 reads back through core v1, updates, and its writer owns the v1 names', async () => {
    const path = '/apis/events.k8s.io/v1/namespaces/default/events';
    const created = await call('POST', path, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'stored-as-core' },
      eventTime: '2026-11-29T02:00:00.000000Z',
      reportingController: 'example.com/tester',
      reportingInstance: 'tester-1',
      action: 'Test',
      reason: 'Tested',
      note: 'written as events.k8s.io/v1',
      type: 'Normal',
      regarding: { kind: 'Pod', namespace: 'default', name: 'p', apiVersion: 'v1' },
    });
    expect(created.status).toBe(201);
    // Stored in core v1's shape, as the reference's storage codec needs it (a protobuf value has
    // no room for the events.k8s.io names), and read so through core v1.
    const stored = await testStore.store.get('/registry/events/default/stored-as-core');
    expect(JSON.parse(stored.kv!.value.toString('utf8'))).toMatchObject({
      apiVersion: 'v1',
      message: 'written as events.k8s.io/v1',
    });
    const core = await call('GET', '/api/v1/namespaces/default/events/stored-as-core');
    expect(core.body).toMatchObject({
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
      message: 'written as events.k8s.io/v1',
      reportingComponent: 'example.com/tester',
    });
    const labelled = { ...created.body, metadata: { ...created.body.metadata, labels: { a: 'b' } } };
    const updated = await call('PUT', `${path}/stored-as-core`, labelled);
    expect(updated.status).toBe(200);
    expect(updated.body.regarding).toEqual(created.body.regarding);
    const owned = Object.keys((updated.body.metadata.managedFields as ManagedFieldsEntry[])[0].fieldsV1 ?? {});
    expect(owned).toEqual(expect.arrayContaining(['f:regarding', 'f:note', 'f:reportingController', 'f:metadata']));
    expect(owned).not.toContain('f:involvedObject');
  });
});

describe("a list's items (as the reference writes them)", () => {
  it('carry no apiVersion and kind in JSON or YAML; table rows still hold whole objects', async () => {
    await create('/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'listed' },
      data: { a: 'b' },
    });
    const list = await call('GET', '/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dlisted');
    expect(list.body.kind).toBe('ConfigMapList');
    expect(list.body.apiVersion).toBe('v1');
    expect(Object.keys(list.body.items[0]).sort()).toEqual(['data', 'metadata']);

    const yaml = await fetch(`${api.base}/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dlisted`, {
      headers: { accept: 'application/yaml' },
    });
    const text = await yaml.text();
    expect(text).toMatch(/^kind: ConfigMapList$/m);
    expect(text).not.toMatch(/kind: ConfigMap$/m);

    const table = await fetch(
      `${api.base}/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dlisted&includeObject=Object`,
      {
        headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
      },
    );
    const rows = ((await table.json()) as { rows: { object: KubeObject }[] }).rows;
    expect(rows[0].object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'listed' } });
  });
});

describe('what a deletion does to dependents when it does not say (as the reference answered)', () => {
  const JOB_WARNING =
    '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"';
  const RC = {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    spec: { selector: { app: 'x' }, template: { metadata: { labels: { app: 'x' } }, spec: POD_SPEC } },
  };
  const JOB = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    spec: { template: { spec: { ...POD_SPEC, restartPolicy: 'Never' } } },
  };
  const EVENT = {
    apiVersion: 'v1',
    kind: 'Event',
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
    reason: 'R',
    message: 'm',
  };

  async function remove(path: string): Promise<{ answer: Answer; warning: string | null }> {
    const response = await fetch(api.base + path, { method: 'DELETE' });
    return {
      answer: { status: response.status, body: await response.json() },
      warning: response.headers.get('warning'),
    };
  }

  it('a v1 ReplicationController and a batch/v1 Job keep their dependents: they linger with the orphan finalizer; the Job warns', async () => {
    await create('/api/v1/namespaces/default/replicationcontrollers', { ...RC, metadata: { name: 'kept-rc' } });
    const rc = await remove('/api/v1/namespaces/default/replicationcontrollers/kept-rc');
    expect(rc.answer.status).toBe(200);
    expect(rc.answer.body.metadata.finalizers).toEqual(['orphan']);
    expect(rc.answer.body.metadata.deletionTimestamp).toEqual(expect.any(String));
    expect(rc.warning).toBeNull();

    await create('/apis/batch/v1/namespaces/default/jobs', { ...JOB, metadata: { name: 'kept-job' } });
    const job = await remove('/apis/batch/v1/namespaces/default/jobs/kept-job');
    expect(job.answer.body.metadata.finalizers).toEqual(['orphan']);
    expect(job.warning).toBe(JOB_WARNING);
  });

  it('what the options or a finalizer the object carries say comes first, without the warning', async () => {
    await create('/apis/batch/v1/namespaces/default/jobs', { ...JOB, metadata: { name: 'cascaded-job' } });
    const cascaded = await remove('/apis/batch/v1/namespaces/default/jobs/cascaded-job?propagationPolicy=Background');
    expect(cascaded.answer.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(cascaded.warning).toBeNull();

    await create('/api/v1/namespaces/default/replicationcontrollers', {
      ...RC,
      metadata: { name: 'foreground-rc', finalizers: ['foregroundDeletion'] },
    });
    const foreground = await remove('/api/v1/namespaces/default/replicationcontrollers/foreground-rc');
    expect(foreground.answer.body.metadata.finalizers).toEqual(['foregroundDeletion']);
  });

  it('an Event never gets a garbage collector finalizer, even when asked for one', async () => {
    await create('/api/v1/namespaces/default/events', { ...EVENT, metadata: { name: 'gone-event' } });
    const event = await remove('/api/v1/namespaces/default/events/gone-event?propagationPolicy=Foreground');
    expect(event.answer.body).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await call('GET', '/api/v1/namespaces/default/events/gone-event')).status).toBe(404);
  });
});
