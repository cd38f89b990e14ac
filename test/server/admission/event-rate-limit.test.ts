/**
 * EventRateLimit with its configuration file, against a real server: Events beyond a limit's
 * burst are refused with the 429 and message kube-apiserver v1.34.4 gives, each limit keyed as
 * the reference keys it; and without a configuration the server does not start.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, failingStart } from '../../helpers/capstan-process';
import { startServer, type TestServer } from '../../helpers/server';

const json = { 'content-type': 'application/json' };
const ADMISSION = (plugin: string) =>
  `apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: EventRateLimit\n  ${plugin}\n`;

describe('EventRateLimit', () => {
  let server: TestServer;
  let configDir: string;
  let serial = 0;

  beforeAll(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'event-rate-limit-'));
    writeFileSync(join(configDir, 'admission.yaml'), ADMISSION('path: eventratelimit.yaml'));
    // qps is at least 1, so a refill takes a second: the tests write faster than that.
    writeFileSync(
      join(configDir, 'eventratelimit.yaml'),
      [
        'apiVersion: eventratelimit.admission.k8s.io/v1alpha1',
        'kind: Configuration',
        'limits:',
        '- {type: Namespace, qps: 1, burst: 4, cacheSize: 1}',
        '- {type: SourceAndObject, qps: 1, burst: 2}',
        '',
      ].join('\n'),
    );
    server = await startServer({
      flags: [
        '--enable-admission-plugins=EventRateLimit',
        `--admission-control-config-file=${join(configDir, 'admission.yaml')}`,
      ],
    });
    for (const name of ['busy', 'other', 'chatty']) {
      const created = await server.request('POST', '/api/v1/namespaces', {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
        headers: json,
      });
      expect(created.status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    rmSync(configDir, { recursive: true, force: true });
  });

  async function event(
    namespace: string,
    involved: string,
    query = '',
  ): Promise<{ status: number; body: Record<string, unknown>; retryAfter: unknown }> {
    serial += 1;
    const answer = await server.request('POST', `/api/v1/namespaces/${namespace}/events${query}`, {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `e${serial}` },
        involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace, name: involved, uid: 'u1' },
        source: { component: 'kubelet', host: 'node1' },
        reason: 'Test',
        message: 'm',
      }),
      headers: json,
    });
    return { status: answer.status, body: JSON.parse(answer.body), retryAfter: answer.headers['retry-after'] };
  }

  /** Writes distinct objects' events until one is refused (at most 20): how many were accepted, and the refusal. */
  async function untilRefused(namespace: string) {
    for (let accepted = 0; accepted < 20; accepted++) {
      const answer = await event(namespace, `p${serial}`);
      if (answer.status !== 201) return { accepted, refusal: answer };
    }
    throw new Error('never refused');
  }

  it('refuses an Event beyond its namespace burst with 429, other writes and namespaces unaffected', async () => {
    const { accepted, refusal } = await untilRefused('busy');
    expect(accepted).toBeGreaterThanOrEqual(4);
    expect(refusal).toEqual({
      status: 429,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Too many requests: limit reached on type Namespace for key busy',
        reason: 'TooManyRequests',
        code: 429,
      },
      retryAfter: undefined,
    });
    const configMap = await server.request('POST', '/api/v1/namespaces/busy/configmaps', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'free' } }),
      headers: json,
    });
    expect(configMap.status).toBe(201);
    // cacheSize 1: the other namespace's bucket pushes busy's out, so busy starts afresh.
    expect((await event('other', 'x')).status).toBe(201);
    expect((await untilRefused('busy')).accepted).toBeGreaterThanOrEqual(4);
  });

  it('a dry run takes no token', async () => {
    for (let i = 0; i < 6; i++) expect((await event('other', `dry${i}`, '?dryRun=All')).status).toBe(201);
    expect((await event('other', 'y')).status).toBe(201);
  });

  it('keys SourceAndObject by source and involved object; refusals of several limits are aggregated', async () => {
    // At once, so that all six meet the buckets within their second (a refill would add a token);
    // which request meets which token is the server's order, so the answers are counted.
    const answers = await Promise.all(Array.from({ length: 6 }, () => event('chatty', 'same')));
    const key = 'kubeletnode1Podchattysameu1v1';
    const counts: Record<string, number> = {};
    for (const answer of answers) {
      const outcome = answer.status === 201 ? 'created' : String(answer.body.message);
      counts[outcome] = (counts[outcome] ?? 0) + 1;
    }
    // Refused writes still take tokens: the namespace (burst 4) runs dry too, and both limits speak.
    expect(counts).toEqual({
      created: 2,
      [`Too many requests: limit reached on type SourceAndObject for key ${key}`]: 2,
      [`Too many requests: [limit reached on type Namespace for key chatty, limit reached on type SourceAndObject for key ${key}]`]: 2,
    });
    expect((await event('chatty', 'same-elsewhere')).body.message).toBe(
      'Too many requests: limit reached on type Namespace for key chatty',
    );
  });
});

describe('EventRateLimit configuration', () => {
  const start = async (admission?: string) => {
    ensureBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'event-rate-limit-bad-'));
    const args = ['--data-dir', join(dir, 'data'), '--secure-port', '0', '--enable-admission-plugins=EventRateLimit'];
    if (admission !== undefined) {
      writeFileSync(join(dir, 'admission.yaml'), admission);
      args.push('--admission-control-config-file', join(dir, 'admission.yaml'));
    }
    try {
      const failed = await failingStart(args);
      return { code: failed.code, lastLine: failed.lastLine };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('without one the server does not start, with the reference message', async () => {
    expect(await start()).toEqual({
      code: 2,
      lastLine:
        'capstan: failed to apply admission: couldn\'t init admission plugin "EventRateLimit": limits: Invalid value: null: must not be empty',
    });
  }, 60_000);

  it('an invalid one is refused with every reason', async () => {
    expect(
      await start(
        ADMISSION(
          'configuration: {apiVersion: eventratelimit.admission.k8s.io/v1alpha1, kind: Configuration, limits: [{type: Pod, qps: 0, burst: 1}, {type: User, qps: 1, burst: 1, cacheSize: -1}]}',
        ),
      ),
    ).toEqual({
      code: 2,
      lastLine:
        'capstan: failed to apply admission: couldn\'t init admission plugin "EventRateLimit": [limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject", limits[0].qps: Invalid value: 0: must be positive, limits[1].cacheSize: Invalid value: -1: must not be negative]',
    });
  }, 60_000);
});
