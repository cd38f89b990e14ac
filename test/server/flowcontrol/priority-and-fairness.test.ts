/**
 * API Priority and Fairness over real HTTP: classification headers, the exempt level, a Reject
 * level's and a full queue's 429, the queue wait limit, a watch holding its seat only until
 * its response starts, fair turns between flows, and the metrics.
 */
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../api/objects';
import { MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS } from '../../../api/flowcontrol-bootstrap';
import { FlowControl } from '../../../server/flowcontrol/flow-control';
import { dealHand, flowHash } from '../../../server/flowcontrol/level-queues';
import { withPriorityAndFairness } from '../../../server/http/with-priority-and-fairness';
import { withRequestDeadline } from '../../../server/http/with-request-deadline';
import { TOO_MANY_REQUESTS_MESSAGE } from '../../../server/http/with-inflight-limit';
import { plainRequest, startStageServer, type StageServer } from '../metrics/stage-server';
import { waitFor, waitUntil } from '../../helpers/wait-for';

const ALL = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };

function level(name: string, uid: string, limitResponse: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name, uid },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse, lendablePercent: 0 } },
  };
}

function schema(name: string, uid: string, levelName: string, precedence: number, namespaces: string[]): KubeObject {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name, uid },
    spec: {
      priorityLevelConfiguration: { name: levelName },
      matchingPrecedence: precedence,
      distinguisherMethod: { type: 'ByNamespace' },
      rules: [
        {
          subjects: [{ kind: 'User', user: { name: 'tester' } }],
          resourceRules: [{ ...ALL, clusterScope: false, namespaces }],
        },
      ],
    },
  };
}

/** Two namespaces whose flows land in different queues of an 8-queue, 1-card-hand level. */
function namespacesInDifferentQueues(): [string, string] {
  const queueOf = (namespace: string) => dealHand(flowHash(`fair/${namespace}`), 8, 1)[0];
  for (let i = 1; i < 100; i++) if (queueOf(`ns${i}`) !== queueOf('ns0')) return ['ns0', `ns${i}`];
  throw new Error('no two namespaces in different queues');
}

describe('API Priority and Fairness', () => {
  let server: StageServer;
  const registry = new Registry();
  // One seat per Limited level: ceil(4 × 5 / 20), four levels of 5 shares (and exempt's 0).
  const flowControl = new FlowControl({ serverConcurrencyLimit: 4, registry });
  const gates = new Map<string, () => void>();
  const served: string[] = [];
  const [first, second] = namespacesInDifferentQueues();

  beforeAll(async () => {
    flowControl.reconfigure(
      [
        ...MANDATORY_FLOW_SCHEMAS.map((object) => ({
          ...object,
          metadata: { ...object.metadata, uid: `fs-${object.metadata.name}` },
        })),
        schema('rejecting', 'fs-rejecting', 'reject', 100, ['reject']),
        schema('queueing', 'fs-queueing', 'queue', 100, ['queue']),
        schema('fair', 'fs-fair', 'fair', 100, [first, second]),
      ],
      [
        ...MANDATORY_PRIORITY_LEVELS.map((object) => ({
          ...object,
          metadata: { ...object.metadata, uid: `pl-${object.metadata.name}` },
        })),
        level('reject', 'pl-reject', { type: 'Reject' }),
        level('queue', 'pl-queue', { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } }),
        level('fair', 'pl-fair', { type: 'Queue', queuing: { queues: 8, handSize: 1, queueLengthLimit: 10 } }),
      ],
    );
    server = await startStageServer({
      stages: [withRequestDeadline({ requestTimeoutMs: 2_000 }), withPriorityAndFairness({ flowControl })],
      routes: (app) =>
        app.use(async (req, res) => {
          req.resume();
          const hold = new URLSearchParams(req.rawQuery).get('hold');
          if (req.requestInfo.verb === 'watch') {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.write('');
            await new Promise<void>((resolve) => gates.set(hold ?? 'watch', resolve));
            res.end();
            return;
          }
          if (hold !== null) await new Promise<void>((resolve) => gates.set(hold, resolve));
          served.push(hold ?? req.requestInfo.path);
          res.json({ ok: true });
        }),
    });
  });
  afterAll(async () => {
    for (const open of gates.values()) open();
    await server.close();
  });

  /** Requests waiting in the queues of `priorityLevel` for `flowSchema`, as the metrics say. */
  async function inQueue(flowSchema: string, priorityLevel: string): Promise<number> {
    const sample = new RegExp(
      `^apiserver_flowcontrol_current_inqueue_requests\\{flow_schema="${flowSchema}",priority_level="${priorityLevel}"\\} (\\d+)$`,
      'm',
    ).exec(await registry.metrics());
    return Number(sample?.[1] ?? 0);
  }

  async function waitForGate(name: string): Promise<() => void> {
    const open = await waitFor(`request ${name} to run`, () => gates.get(name), 3_000, 10);
    gates.delete(name);
    return open;
  }

  const pods = (namespace: string, query = '') => `${server.url}/api/v1/namespaces/${namespace}/pods${query}`;

  it('answers with the uids of the flow schema and priority level that classified the request', async () => {
    const reply = await plainRequest(pods('reject'));
    expect(reply.status).toBe(200);
    expect(reply.headers['x-kubernetes-pf-flowschema-uid']).toBe('fs-rejecting');
    expect(reply.headers['x-kubernetes-pf-prioritylevel-uid']).toBe('pl-reject');
    const masters = await plainRequest(pods('reject'), { headers: { 'x-test-groups': 'system:masters' } });
    expect(masters.headers['x-kubernetes-pf-flowschema-uid']).toBe('fs-exempt');
    expect(masters.headers['x-kubernetes-pf-prioritylevel-uid']).toBe('pl-exempt');
  });

  it('refuses what a Reject level has no seat for, with the reference 429, while the exempt level runs everything', async () => {
    const held = plainRequest(pods('reject', '?hold=r1'));
    const open = await waitForGate('r1');
    const refused = await plainRequest(pods('reject'));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused.body)).toMatchObject({
      kind: 'Status',
      reason: 'TooManyRequests',
      code: 429,
      message: TOO_MANY_REQUESTS_MESSAGE,
    });
    expect(refused.headers['x-kubernetes-pf-prioritylevel-uid']).toBe('pl-reject');
    expect((await plainRequest(pods('reject'), { headers: { 'x-test-groups': 'system:masters' } })).status).toBe(200);
    open();
    expect((await held).status).toBe(200);
    expect((await plainRequest(pods('reject'))).status).toBe(200);
  });

  it('queues up to the queue length limit, refuses past it, and gives up on a wait longer than a quarter of the deadline', async () => {
    const running = plainRequest(pods('queue', '?hold=q1'));
    const openRunning = await waitForGate('q1');
    const queued = plainRequest(pods('queue', '?hold=q2'));
    await waitUntil('q2 queued', async () => (await inQueue('queueing', 'queue')) === 1, 2_000, 10);
    const full = await plainRequest(pods('queue'));
    expect(full.status).toBe(429);
    openRunning();
    const openQueued = await waitForGate('q2');
    openQueued();
    expect((await running).status).toBe(200);
    expect((await queued).status).toBe(200);

    // 2 s deadline: a queued request waits at most 500 ms.
    const blocking = plainRequest(pods('queue', '?hold=q3'));
    const openBlocking = await waitForGate('q3');
    const started = Date.now();
    const timedOut = await plainRequest(pods('queue'));
    expect(timedOut.status).toBe(429);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    openBlocking();
    await blocking;

    const text = await registry.metrics();
    expect(text).toMatch(
      /apiserver_flowcontrol_rejected_requests_total\{flow_schema="queueing",priority_level="queue",reason="queue-full"\} 1/,
    );
    expect(text).toMatch(
      /apiserver_flowcontrol_rejected_requests_total\{flow_schema="queueing",priority_level="queue",reason="time-out"\} 1/,
    );
    expect(text).toMatch(
      /apiserver_flowcontrol_rejected_requests_total\{flow_schema="rejecting",priority_level="reject",reason="concurrency-limit"\} 1/,
    );
    expect(text).toMatch(
      /apiserver_flowcontrol_dispatched_requests_total\{flow_schema="queueing",priority_level="queue"\} 3/,
    );
    expect(text).toMatch(
      /apiserver_flowcontrol_current_executing_requests\{flow_schema="queueing",priority_level="queue"\} 0/,
    );
    expect(text).toMatch(
      /apiserver_flowcontrol_current_inqueue_requests\{flow_schema="queueing",priority_level="queue"\} 0/,
    );
    expect(text).toMatch(
      /apiserver_flowcontrol_request_wait_duration_seconds_count\{flow_schema="queueing",priority_level="queue",execute="false"\} 2/,
    );
  });

  it('lets a watch hold its seat only until its response starts', async () => {
    const watch = plainRequest(pods('reject', '?watch=true&hold=w1'));
    const closeWatch = await waitForGate('w1');
    expect((await plainRequest(pods('reject'))).status).toBe(200);
    closeWatch();
    await watch;
  });

  it('gives each flow its turn: a lone request of one flow runs before the backlog of another', async () => {
    const blocker = plainRequest(pods(first, '?hold=blocker'));
    const openBlocker = await waitForGate('blocker');
    served.length = 0;
    const backlog = [1, 2, 3].map((i) => plainRequest(pods(first, `?n=${i}`)));
    await waitUntil('the backlog queued', async () => (await inQueue('fair', 'fair')) === 3, 2_000, 10);
    const lone = plainRequest(pods(second, '?n=lone'));
    await waitUntil('the lone request queued', async () => (await inQueue('fair', 'fair')) === 4, 2_000, 10);
    openBlocker();
    await Promise.all([blocker, ...backlog, lone]);
    const order = served.filter((path) => path !== 'blocker').map((path) => path.split('/')[3]);
    expect(order.indexOf(second)).toBeLessThanOrEqual(1);
  });
});
