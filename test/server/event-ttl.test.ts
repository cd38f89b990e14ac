/**
 * `--event-ttl`: Events (core/v1 and events.k8s.io/v1, one storage) are deleted that long after
 * their last write, and watchers see them go, on SQLite and on etcd alike. Other kinds stay.
 * Also the parsing of `--event-ttl` and `--lease-reuse-duration-seconds`.
 */
import { request as httpsRequest } from 'node:https';
import { parseFlags, type ServerOptions } from '../../server/config/flags';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../helpers/in-process-server';
import type { KubeconfigCredentials } from '../helpers/server';

function options(argv: readonly string[]): ServerOptions {
  const parsed = parseFlags(argv);
  if (!('options' in parsed)) throw new Error('unexpected --help or --version');
  return parsed.options;
}

describe('the flags', () => {
  test('--event-ttl is a Go duration taken in whole seconds, 1h by default', () => {
    expect(options([]).eventTtlSeconds).toBe(3600);
    expect(options(['--event-ttl=1m30s']).eventTtlSeconds).toBe(90);
    // Under a second is no TTL at all, as the reference's whole-second TTL of 0 asks for no lease.
    expect(options(['--event-ttl=500ms']).eventTtlSeconds).toBe(0);
    expect(() => parseFlags(['--event-ttl=soon'])).toThrow(
      'invalid argument "soon" for "--event-ttl" flag: time: invalid duration "soon"',
    );
  });

  test('--lease-reuse-duration-seconds is an integer, 60 by default', () => {
    expect(options([]).leaseReuseDurationSeconds).toBe(60);
    expect(options(['--lease-reuse-duration-seconds=120']).leaseReuseDurationSeconds).toBe(120);
    expect(() => parseFlags(['--lease-reuse-duration-seconds=1m'])).toThrow(
      'invalid argument "1m" for "--lease-reuse-duration-seconds" flag: strconv.ParseInt: parsing "1m": invalid syntax',
    );
  });
});

interface WatchEvent {
  readonly type: string;
  readonly object: { readonly kind: string; readonly metadata: { readonly name: string } };
}

/** Watches `path` until `done` holds for the events so far (or `timeoutMs` passes); the events. */
function watchUntil(
  url: string,
  credentials: KubeconfigCredentials,
  path: string,
  done: (events: WatchEvent[]) => boolean,
  timeoutMs: number,
): Promise<WatchEvent[]> {
  return new Promise((resolve, reject) => {
    const events: WatchEvent[] = [];
    let buffered = '';
    const req = httpsRequest(
      new URL(path, url),
      { ca: credentials.ca, cert: credentials.cert, key: credentials.key },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`watch answered ${res.statusCode}`));
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
            events.push(JSON.parse(buffered.slice(0, newline)) as WatchEvent);
            buffered = buffered.slice(newline + 1);
          }
          if (done(events)) finish();
        });
      },
    );
    const timer = setTimeout(finish, timeoutMs);
    function finish() {
      clearTimeout(timer);
      req.destroy();
      resolve(events);
    }
    req.on('error', () => undefined);
    req.end();
  });
}

const coreEvent = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'subject' },
  reason: 'Tested',
  message: 'expires',
  type: 'Normal',
});

const eventsV1Event = (name: string) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2026-11-28T12:00:00.000000Z',
  reportingController: 'capstan.test/ttl',
  reportingInstance: 'test',
  action: 'Testing',
  reason: 'Tested',
  regarding: { kind: 'ConfigMap', namespace: 'default', name: 'subject' },
  type: 'Normal',
});

describe.each(['sqlite', 'etcd'] as const)('Events on %s with --event-ttl=2s', (backend) => {
  let etcd: EtcdServer | undefined;
  let server: InProcessServer;

  beforeAll(async () => {
    const flags = ['--event-ttl=2s'];
    if (backend === 'etcd') {
      etcd = await startEtcd();
      flags.push(`--etcd-servers=${etcd.endpoints.join(',')}`);
    }
    server = await startInProcessServer(flags);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  test('are deleted two seconds after their last write, with a DELETED watch event; a ConfigMap stays', async () => {
    const post = async (path: string, body: object) => {
      const response = await server.request('POST', path, {
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(201);
      return response.json<{ metadata: { resourceVersion: string } }>();
    };
    const first = await post('/api/v1/namespaces/default/events', coreEvent('core-event'));
    await post('/apis/events.k8s.io/v1/namespaces/default/events', eventsV1Event('new-api-event'));
    await post('/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'subject' },
    });
    expect((await server.request('GET', '/api/v1/namespaces/default/events/core-event')).status).toBe(200);

    const deleted = (events: WatchEvent[]) =>
      events
        .filter((event) => event.type === 'DELETED')
        .map((event) => event.object.metadata.name)
        .sort();
    const events = await watchUntil(
      server.url,
      server.credentials,
      `/api/v1/namespaces/default/events?watch=true&resourceVersion=${first.metadata.resourceVersion}`,
      (seen) => deleted(seen).length === 2,
      20_000,
    );
    expect(deleted(events)).toEqual(['core-event', 'new-api-event']);
    expect((await server.request('GET', '/api/v1/namespaces/default/events/core-event')).status).toBe(404);
    expect((await server.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events/new-api-event')).status).toBe(
      404,
    );
    expect((await server.request('GET', '/api/v1/namespaces/default/configmaps/subject')).status).toBe(200);
  }, 40_000);
});
