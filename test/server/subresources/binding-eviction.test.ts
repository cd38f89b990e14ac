/**
 * pods/binding and pods/eviction over real HTTPS (a whole replica in this process), with the
 * answers a reference kube-apiserver v1.34.4 gave for the same requests as expectations.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const NS = '/api/v1/namespaces/default';
const JSON_BODY = { 'Content-Type': 'application/json' };

function pod(name: string, labels: Record<string, string> = { app: 'a' }): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  });
}

const binding = (name: string, node: string) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { kind: 'Node', name: node } });
const eviction = (name: string) => JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name } });

const CREATED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

interface PodShape {
  metadata: { deletionTimestamp?: string; managedFields?: unknown[] };
  spec: { nodeName?: string };
  status: {
    conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
  };
}

describe('pods/binding and pods/eviction', () => {
  // This server runs no service-account controller, so no `default` account: its pods are not the point here.
  const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount'], 30_000);

  const post = (path: string, body: string) => server.request('POST', path, { body, headers: JSON_BODY });
  const createPod = async (name: string, labels?: Record<string, string>) =>
    expect((await post(`${NS}/pods`, pod(name, labels))).status).toBe(201);
  const running = async (name: string) => {
    const patched = await server.request('PATCH', `${NS}/pods/${name}/status`, {
      body: JSON.stringify({ status: { phase: 'Running' } }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
  };

  it('binds an unassigned pod once, as the reference does', async () => {
    await createPod('bound');
    const before = (await server.request('GET', `${NS}/pods/bound`)).json<PodShape>();
    const bound = await post(`${NS}/pods/bound/binding`, binding('bound', 'n1'));
    expect(bound.status).toBe(201);
    expect(bound.json()).toEqual(CREATED);
    const after = (await server.request('GET', `${NS}/pods/bound`)).json<PodShape>();
    expect(after.spec.nodeName).toBe('n1');
    expect(after.status.conditions).toEqual([
      expect.objectContaining({
        type: 'PodScheduled',
        status: 'True',
        lastProbeTime: null,
        lastTransitionTime: expect.any(String),
      }),
    ]);
    // The reference's binding writes the pod directly: no managedFields entry of its own.
    expect(after.metadata.managedFields).toEqual(before.metadata.managedFields);

    const again = await post(`${NS}/pods/bound/binding`, binding('bound', 'n2'));
    expect(again.status).toBe(409);
    expect(again.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "n1"',
      reason: 'Conflict',
      details: { name: 'bound', kind: 'pods/binding' },
      code: 409,
    });
  });

  it('answers a missing pod, a name mismatch and no target as the reference does', async () => {
    const missing = await post(`${NS}/pods/nope/binding`, binding('nope', 'n1'));
    expect(missing.status).toBe(404);
    expect(missing.json()).toMatchObject({
      message: 'pods "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'pods' },
    });
    await createPod('unbound');
    const mismatch = await post(`${NS}/pods/unbound/binding`, binding('other', 'n1'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.json()).toMatchObject({
      message: 'name in URL does not match name in Binding object',
      reason: 'BadRequest',
    });
    // The reference answers 500 with this message; a missing field is the client's fault.
    const noTarget = await post(
      `${NS}/pods/unbound/binding`,
      JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'unbound' }, target: {} }),
    );
    expect(noTarget.status).toBe(400);
    expect(noTarget.json()).toMatchObject({ message: 'target.name: Required value' });
  });

  it('binds through the legacy bindings collection, as the reference does', async () => {
    await createPod('legacy');
    const bound = await post(`${NS}/bindings`, binding('legacy', 'n1'));
    expect(bound.status).toBe(201);
    expect(bound.json()).toEqual(CREATED);
    expect((await server.request('GET', `${NS}/pods/legacy`)).json<PodShape>().spec.nodeName).toBe('n1');
    const again = await post(`${NS}/bindings`, binding('legacy', 'n2'));
    expect(again.status).toBe(409);
    expect(again.json()).toMatchObject({
      message: 'Operation cannot be fulfilled on pods/binding "legacy": pod legacy is already assigned to node "n1"',
    });
    const unnamed = await post(
      `${NS}/bindings`,
      JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: {}, target: { kind: 'Node', name: 'n1' } }),
    );
    expect(unnamed.status).toBe(400);
    expect(unnamed.json()).toMatchObject({ message: 'Name parameter required.', reason: 'BadRequest' });
    const missing = await post(`${NS}/bindings`, binding('zz', 'n1'));
    expect(missing.json()).toMatchObject({ message: 'pods "zz" not found', reason: 'NotFound', code: 404 });
  });

  it('lists the subresources in discovery with the reference kinds and verbs', async () => {
    const list = (await server.request('GET', '/api/v1')).json<{ resources: Record<string, unknown>[] }>();
    const byName = new Map(list.resources.map((resource) => [resource.name, resource]));
    expect(byName.get('bindings')).toEqual({
      name: 'bindings',
      singularName: 'binding',
      namespaced: true,
      kind: 'Binding',
      verbs: ['create'],
    });
    expect(byName.get('pods/binding')).toEqual({
      name: 'pods/binding',
      singularName: '',
      namespaced: true,
      kind: 'Binding',
      verbs: ['create'],
    });
    expect(byName.get('pods/eviction')).toEqual({
      name: 'pods/eviction',
      singularName: '',
      namespaced: true,
      group: 'policy',
      version: 'v1',
      kind: 'Eviction',
      verbs: ['create'],
    });
  });

  describe('eviction', () => {
    const budgetPath = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';
    const setBudgetStatus = async (status: object) => {
      const patched = await server.request('PATCH', `${budgetPath}/budget/status`, {
        body: JSON.stringify({ status }),
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      expect(patched.status).toBe(200);
    };

    beforeAll(async () => {
      const created = await post(
        budgetPath,
        JSON.stringify({
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: { name: 'budget' },
          spec: { minAvailable: 1, selector: { matchLabels: { app: 'guarded' } } },
        }),
      );
      expect(created.status).toBe(201);
    });

    it('deletes a pod no budget selects, and a pending pod whatever its budget', async () => {
      await createPod('free', { app: 'free' });
      await running('free');
      const free = await post(`${NS}/pods/free/eviction`, eviction('free'));
      expect(free.status).toBe(201);
      expect(free.json()).toEqual(CREATED);
      expect((await server.request('GET', `${NS}/pods/free`)).status).toBe(404);

      await createPod('pending', { app: 'guarded' });
      expect((await post(`${NS}/pods/pending/eviction`, eviction('pending'))).status).toBe(201);
      expect((await server.request('GET', `${NS}/pods/pending`)).status).toBe(404);
    });

    it('refuses while the budget is unprocessed or allows no disruption, then takes one', async () => {
      await createPod('guarded', { app: 'guarded' });
      await running('guarded');
      const unprocessed = await post(`${NS}/pods/guarded/eviction`, eviction('guarded'));
      expect(unprocessed.status).toBe(429);
      expect(unprocessed.headers['retry-after']).toBe('10');
      // The reference's cause is {"reason":"DisruptionBudget",...}; capstan's Status writes every
      // cause's reason under "type" (a wire difference of all causes, left to the status code).
      expect(unprocessed.json()).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: 'TooManyRequests',
        details: {
          causes: [{ message: 'The disruption budget budget is still being processed by the server.' }],
          retryAfterSeconds: 10,
        },
        code: 429,
      });

      await setBudgetStatus({
        observedGeneration: 1,
        disruptionsAllowed: 0,
        currentHealthy: 1,
        desiredHealthy: 1,
        expectedPods: 1,
      });
      const none = await post(`${NS}/pods/guarded/eviction`, eviction('guarded'));
      expect(none.status).toBe(429);
      expect(none.headers['retry-after']).toBeUndefined();
      expect(none.json()).toMatchObject({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: 'TooManyRequests',
        details: { causes: [{ message: 'The disruption budget budget needs 1 healthy pods and has 1 currently' }] },
        code: 429,
      });
      expect(none.json<{ details: object }>().details).not.toHaveProperty('retryAfterSeconds');
      expect((await server.request('GET', `${NS}/pods/guarded`)).status).toBe(200);

      await setBudgetStatus({
        observedGeneration: 1,
        disruptionsAllowed: 1,
        currentHealthy: 2,
        desiredHealthy: 1,
        expectedPods: 2,
      });
      const evicted = await post(`${NS}/pods/guarded/eviction`, eviction('guarded'));
      expect(evicted.status).toBe(201);
      expect(evicted.json()).toEqual(CREATED);
      expect((await server.request('GET', `${NS}/pods/guarded`)).status).toBe(404);
      const budget = (await server.request('GET', `${budgetPath}/budget`)).json<{ status: Record<string, unknown> }>();
      expect(budget.status).toEqual({
        observedGeneration: 1,
        disruptedPods: { guarded: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) },
        disruptionsAllowed: 0,
        currentHealthy: 2,
        desiredHealthy: 1,
        expectedPods: 2,
        conditions: [
          {
            type: 'DisruptionAllowed',
            status: 'False',
            observedGeneration: 1,
            lastTransitionTime: expect.any(String),
            reason: 'InsufficientPods',
            message: '',
          },
        ],
      });
    });

    it('lets kubectl drain evict through it', async () => {
      expect(
        (await post('/api/v1/nodes', JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'drained' } })))
          .status,
      ).toBe(201);
      for (const name of ['drain-a', 'drain-b']) {
        await createPod(name, { app: 'drained' });
        expect((await post(`${NS}/pods/${name}/binding`, binding(name, 'drained'))).status).toBe(201);
        await running(name);
      }
      // Without a kubelet a bound pod's graceful deletion never completes (on the reference too):
      // drain asks for grace 0, so the evicted pods go at once.
      const drain = await server.kubectl([
        'drain',
        'drained',
        '--force',
        '--ignore-daemonsets',
        '--grace-period=0',
        '--timeout=20s',
      ]);
      if (drain.code !== 0) throw new Error(`kubectl drain failed:\n${drain.stderr}${drain.stdout}`);
      expect(drain.stdout).toContain('evicting pod default/drain-a');
      expect(drain.stdout).toContain('node/drained drained');
      for (const name of ['drain-a', 'drain-b'])
        expect((await server.request('GET', `${NS}/pods/${name}`)).status).toBe(404);
      const node = (await server.request('GET', '/api/v1/nodes/drained')).json<{ spec: { unschedulable?: boolean } }>();
      expect(node.spec.unschedulable).toBe(true);
    }, 30_000);

    it('answers a missing pod and a name mismatch as the reference does', async () => {
      const missing = await post(`${NS}/pods/zz/eviction`, eviction('zz'));
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ message: 'pods "zz" not found', details: { name: 'zz', kind: 'pods' } });
      await createPod('named', { app: 'free' });
      const mismatch = await post(`${NS}/pods/named/eviction`, eviction('zz'));
      expect(mismatch.status).toBe(400);
      expect(mismatch.json()).toMatchObject({
        message: 'name in URL does not match name in Eviction object',
        reason: 'BadRequest',
      });
    });
  });
});
