/**
 * Overload and limits over real HTTP: the in-flight limit's 429s per pool (with the exemptions
 * for watches and system:masters) and the request timeout's 504, with the `timeout` parameter,
 * and what a timed-out request's handler and write did afterwards.
 */
import { createApiserverMetrics } from '../../../server/metrics/apiserver-metrics';
import { withRequestMetrics } from '../../../server/metrics/with-request-metrics';
import { TOO_MANY_REQUESTS_MESSAGE, withInflightLimit } from '../../../server/http/with-inflight-limit';
import { withRequestDeadline } from '../../../server/http/with-request-deadline';
import { REQUEST_TIMEOUT_MESSAGE, withRequestTimeout } from '../../../server/http/with-request-timeout';
import { plainRequest, startStageServer, type StageServer } from './stage-server';
import { finishRequest, postTimeoutLogLine, type PostTimeoutActivity } from '../../../server/handlers/post-timeout';
import { statusErrorHandler } from '../../../server/http/errors';
import { StatusError } from '../../../server/status/status-error';
import { waitUntil } from '../../helpers/wait-for';

const PODS = '/api/v1/namespaces/default/pods';

describe('the in-flight limit', () => {
  let server: StageServer;
  const metrics = createApiserverMetrics({ processMetrics: false });
  let release: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (release = resolve));
  let arrived = 0;

  beforeAll(async () => {
    server = await startStageServer({
      stagesBeforeUser: [withRequestMetrics({ metrics })],
      stages: [
        withInflightLimit({
          maxReadOnly: 2,
          maxMutating: 1,
          onCountChange: (pool, count) => metrics.currentInflightRequests.set({ request_kind: pool }, count),
        }),
      ],
      routes: (app) =>
        app.use(async (req, res) => {
          arrived++;
          req.resume();
          if (req.rawQuery.includes('hold')) await gate;
          res.json({ ok: true });
        }),
    });
  });
  afterAll(async () => {
    release();
    await server.close();
  });

  async function waitForArrivals(count: number): Promise<void> {
    await waitUntil(`${count} requests arrived`, () => arrived >= count, 2_000, 10);
  }

  it('answers 429 with Retry-After when a pool is full, counts pools apart, and exempts watches and system:masters', async () => {
    const held = [
      plainRequest(`${server.url}${PODS}/a?hold=1`),
      plainRequest(`${server.url}${PODS}?hold=1`),
      plainRequest(`${server.url}${PODS}?hold=1`, { method: 'POST', body: '{}' }),
    ];
    await waitForArrivals(3);

    const rejectedRead = await plainRequest(`${server.url}${PODS}/b`);
    expect(rejectedRead.status).toBe(429);
    expect(rejectedRead.headers['retry-after']).toBe('1');
    expect(JSON.parse(rejectedRead.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: TOO_MANY_REQUESTS_MESSAGE,
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
      code: 429,
    });
    const rejectedWrite = await plainRequest(`${server.url}${PODS}/b`, { method: 'DELETE' });
    expect(rejectedWrite.status).toBe(429);

    expect((await plainRequest(`${server.url}${PODS}?watch=true`)).status).toBe(200);
    expect(
      (
        await plainRequest(`${server.url}${PODS}/c`, {
          headers: { 'x-test-groups': 'system:masters,system:authenticated' },
        })
      ).status,
    ).toBe(200);

    const text = await metrics.scrape();
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 2');
    expect(text).toContain('apiserver_current_inflight_requests{request_kind="mutating"} 1');

    release();
    expect((await Promise.all(held)).map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect((await plainRequest(`${server.url}${PODS}/b`)).status).toBe(200);
    const after = await metrics.scrape();
    expect(after).toContain('apiserver_current_inflight_requests{request_kind="readOnly"} 0');
    expect(after).toMatch(
      /apiserver_request_total\{verb="GET",dry_run="",group="",version="v1",resource="pods",subresource="",scope="resource",component="apiserver",code="429"\} 1/,
    );
    expect(after).toMatch(/apiserver_request_total\{verb="DELETE",[^}]*code="429"\} 1/);
  });
});

describe('the request timeout', () => {
  let server: StageServer;
  let lateWriteFailed: unknown;
  /** Settles when the last request's handler has tried to answer. */
  let handlerEnded: Promise<void> = Promise.resolve();

  beforeAll(async () => {
    server = await startStageServer({
      stages: [withRequestDeadline({ requestTimeoutMs: 400 }), withRequestTimeout()],
      routes: (app) =>
        app.use(async (req, res) => {
          let ended = () => {};
          handlerEnded = new Promise((resolve) => (ended = resolve));
          req.resume();
          // A handler that takes `delay` ms: the slow request the deadline is about.
          const delay = Number(new URLSearchParams(req.rawQuery).get('delay') ?? 0);
          await new Promise((resolve) => setTimeout(resolve, delay));
          try {
            res.setHeader('Content-Type', 'application/json');
            res.status(200).end(JSON.stringify({ finished: true }));
          } catch (error) {
            lateWriteFailed = error;
          }
          ended();
        }),
    });
  });
  afterAll(() => server.close());

  it('answers a short request still running at --request-timeout with the reference 504 Status', async () => {
    const startedAt = Date.now();
    const reply = await plainRequest(`${server.url}${PODS}?delay=1500`);
    expect(Date.now() - startedAt).toBeLessThan(1_200);
    expect(reply.status).toBe(504);
    expect(JSON.parse(reply.body)).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: REQUEST_TIMEOUT_MESSAGE,
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    // The handler finishes later and its answer is dropped without an error.
    await handlerEnded;
    expect(lateWriteFailed).toBeUndefined();
  });

  it('takes a shorter timeout from the query, and rejects an unparsable one', async () => {
    const startedAt = Date.now();
    const reply = await plainRequest(`${server.url}${PODS}?delay=1000&timeout=100ms`);
    expect(reply.status).toBe(504);
    expect(Date.now() - startedAt).toBeLessThan(380);
    expect((await plainRequest(`${server.url}${PODS}?timeout=soon`)).status).toBe(400);
  });

  it('leaves fast requests and watches alone', async () => {
    expect((await plainRequest(`${server.url}${PODS}?delay=10`)).status).toBe(200);
    expect((await plainRequest(`${server.url}${PODS}?watch=1&delay=700`)).status).toBe(200);
  });
});

describe('post-timeout activity', () => {
  let server: StageServer;
  const activities: PostTimeoutActivity[] = [];
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    server = await startStageServer({
      stages: [
        withRequestDeadline({ requestTimeoutMs: 200 }),
        withRequestTimeout({ onPostTimeout: (activity) => activities.push(activity), postTimeoutWaitMs: 600 }),
      ],
      routes: (app) => {
        // A write whose rest-layer work (`work`) begins after `beforeMs` and takes `workMs`, then a
        // handler that takes `afterMs` more.
        app.use(async (req, res) => {
          req.resume();
          const query = new URLSearchParams(req.rawQuery);
          await sleep(Number(query.get('beforeMs') ?? 0));
          const workMs = Number(query.get('workMs') ?? 0);
          const outcome = query.get('work') ?? 'ok';
          const work = sleep(workMs).then(() => {
            if (outcome === 'conflict')
              throw new StatusError({ code: 409, reason: 'Conflict', message: 'changed', details: {} });
            if (outcome === 'panic') throw new TypeError('nil map');
            return { done: true };
          });
          const answer = await finishRequest(req, work);
          await sleep(Number(query.get('afterMs') ?? 0));
          res.json(answer);
        });
        app.use(statusErrorHandler());
      },
    });
  });
  afterAll(() => server.close());
  beforeEach(() => (activities.length = 0));

  const summary = () => activities.map(({ source, status }) => `${source} ${status}`).sort();

  it('reports a write that finished after its 504, and the handler that then ended', async () => {
    const reply = await plainRequest(`${server.url}${PODS}?workMs=400`, { method: 'POST', body: '{}' });
    expect(reply.status).toBe(504);
    await waitUntil('both reports', () => activities.length === 2, 2_000, 10);
    expect(summary()).toEqual(['rest-handler ok', 'timeout-handler ok']);
    const rest = activities.find(({ source }) => source === 'rest-handler')!;
    expect(rest).toMatchObject({ method: 'POST', path: PODS });
    expect(rest.elapsedMs).toBeGreaterThan(100);
    expect(postTimeoutLogLine(rest)).toMatch(
      /^post-timeout activity \(rest-handler\): POST \/api\/v1\/namespaces\/default\/pods: the write finished 0\.\d{3}s after its timeout: ok$/,
    );
  });

  it('reports a write whose work only began after its 504', async () => {
    const reply = await plainRequest(`${server.url}${PODS}?beforeMs=300&workMs=100`, { method: 'POST' });
    expect(reply.status).toBe(504);
    await waitUntil('both reports', () => activities.length === 2, 2_000, 10);
    expect(summary()).toEqual(['rest-handler ok', 'timeout-handler ok']);
    expect(activities.find(({ source }) => source === 'rest-handler')!.elapsedMs).toBeGreaterThan(150);
  });

  it('tells a write that failed from one that panicked', async () => {
    expect((await plainRequest(`${server.url}${PODS}?workMs=400&work=conflict`, { method: 'POST' })).status).toBe(504);
    await waitUntil('both reports', () => activities.length === 2, 2_000, 10);
    expect(summary()).toEqual(['rest-handler error', 'timeout-handler ok']);
    expect(postTimeoutLogLine(activities.find(({ source }) => source === 'rest-handler')!)).toMatch(
      /: error: changed$/,
    );

    activities.length = 0;
    // The chain logs a panic's error; this one is meant.
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect((await plainRequest(`${server.url}${PODS}?workMs=400&work=panic`, { method: 'POST' })).status).toBe(504);
      await waitUntil('both reports', () => activities.length === 2, 2_000, 10);
    } finally {
      logged.mockRestore();
    }
    expect(summary()).toEqual(['rest-handler panic', 'timeout-handler panic']);
  });

  it('reports a write still running after the wait as pending, and not again when it ends', async () => {
    expect((await plainRequest(`${server.url}${PODS}?workMs=1200`, { method: 'POST' })).status).toBe(504);
    await waitUntil('the pending report', () => activities.length === 1, 2_000, 10);
    expect(summary()).toEqual(['rest-handler pending']);
    expect(activities[0].elapsedMs).toBeGreaterThanOrEqual(590);
    expect(postTimeoutLogLine(activities[0])).toMatch(/: the write has not finished \d+\.\d{3}s after its timeout$/);
    await waitUntil('the handler', () => activities.length === 2, 2_000, 10);
    await sleep(100);
    expect(summary()).toEqual(['rest-handler pending', 'timeout-handler ok']);
  });

  it('reports only the handler when the write had finished before the timeout', async () => {
    expect((await plainRequest(`${server.url}${PODS}?workMs=10&afterMs=400`, { method: 'POST' })).status).toBe(504);
    await waitUntil('the handler', () => activities.length === 1, 2_000, 10);
    await sleep(100);
    expect(summary()).toEqual(['timeout-handler ok']);
  });

  it('reports nothing for a request answered in time', async () => {
    expect((await plainRequest(`${server.url}${PODS}?workMs=10`, { method: 'POST' })).status).toBe(200);
    await sleep(300);
    expect(activities).toEqual([]);
  });
});
