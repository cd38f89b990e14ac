/**
 * Overload and limits over real HTTP: the in-flight limit's 429s per pool (with the exemptions
 * for watches and system:masters) and the request timeout's 504, with the `timeout` parameter.
 */
import { createApiserverMetrics } from '../../../server/metrics/apiserver-metrics';
import { withRequestMetrics } from '../../../server/metrics/with-request-metrics';
import { TOO_MANY_REQUESTS_MESSAGE, withInflightLimit } from '../../../server/http/with-inflight-limit';
import { withRequestDeadline } from '../../../server/http/with-request-deadline';
import { REQUEST_TIMEOUT_MESSAGE, withRequestTimeout } from '../../../server/http/with-request-timeout';
import { plainRequest, startStageServer, type StageServer } from './stage-server';
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
