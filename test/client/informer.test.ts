/**
 * An informer of @kubernetes/client-node (2.x, the real library in a child Node process, see
 * informer/pod-informer.mjs) lists and watches the pods of a namespace while kubectl changes
 * them, and sees every change in order; then, paused while pods change and history is compacted
 * (`--etcd-compaction-interval=1s`), it resumes from its old resource version, is told 410, re-lists,
 * and ends with the pods that exist. On the embedded SQLite store and on a real etcd.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { startServer, type TestServer } from '../helpers/server';
import { waitUntil } from '../helpers/wait-for';

const NAMESPACE = 'informed';
const EVENT_TIMEOUT_MS = 10_000;
const COMPACTION_TIMEOUT_MS = 15_000;
const INFORMER_SCRIPT = join(__dirname, 'informer', 'pod-informer.mjs');

interface InformerEvent {
  readonly event: 'list' | 'add' | 'update' | 'delete' | 'connect' | 'error' | 'stopped' | 'starting' | 'snapshot';
  readonly name?: string;
  readonly names?: string[];
  readonly resourceVersion?: string;
  readonly labels?: Record<string, string>;
  readonly message?: string;
}

/** The informer process: its events in arrival order, read one by one with a deadline each. */
class InformerProcess {
  private readonly events: InformerEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private cursor = 0;
  private stderr = '';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      this.events.push(JSON.parse(line) as InformerEvent);
      for (const wake of this.waiters) wake();
    });
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  static start(kubeconfig: string, namespace: string): InformerProcess {
    // The test's own Node (24): client-node 2.x needs Node >= 22.
    return new InformerProcess(spawn(process.execPath, [INFORMER_SCRIPT, kubeconfig, namespace], { stdio: 'pipe' }));
  }

  send(command: 'stop' | 'start' | 'snapshot'): void {
    this.child.stdin.write(`${command}\n`);
  }

  /** The next event not yet read, skipping `connect` (the informer reports every reconnect). */
  async next(): Promise<InformerEvent> {
    const deadline = Date.now() + EVENT_TIMEOUT_MS;
    for (;;) {
      while (this.cursor < this.events.length) {
        const event = this.events[this.cursor++];
        if (event.event === 'error') throw new Error(`informer error: ${event.message}`);
        if (event.event !== 'connect') return event;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(
          `no informer event within ${EVENT_TIMEOUT_MS} ms; seen ${JSON.stringify(this.events)}\n${this.stderr}`,
        );
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, remaining);
        this.waiters.add(wake);
      });
    }
  }

  /** The next `count` events, in order. */
  async take(count: number): Promise<InformerEvent[]> {
    const taken: InformerEvent[] = [];
    while (taken.length < count) taken.push(await this.next());
    return taken;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const killer = setTimeout(() => this.child.kill('SIGKILL'), 2_000);
    await exited;
    clearTimeout(killer);
  }
}

function podManifest(name: string): string {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: ${name}`,
    '  labels:',
    '    app: informed',
    'spec:',
    '  containers:',
    '  - name: app',
    '    image: registry.example.com/app:1.0',
  ].join('\n');
}

/** Changes as the informer reports them: kind of event, pod, and the label the test sets. */
function summary(events: readonly InformerEvent[]): string[] {
  return events.map((e) =>
    e.names !== undefined
      ? `${e.event} [${e.names.join(',')}]`
      : `${e.event} ${e.name}${e.labels?.tier ? ` tier=${e.labels.tier}` : ''}`,
  );
}

interface Backend {
  readonly name: string;
  start(flags: string[]): Promise<{ server: TestServer; stop(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'SQLite',
    start: async (flags) => {
      const server = await startServer({ flags });
      return { server, stop: () => server.stop() };
    },
  },
  {
    name: 'etcd',
    start: async (flags) => {
      const etcd: EtcdServer = await startEtcd();
      try {
        const server = await startServer({ etcdServers: etcd.endpoints, etcdPrefix: '/informer-test', flags });
        return {
          server,
          stop: async () => {
            await server.stop();
            await etcd.stop();
          },
        };
      } catch (error) {
        await etcd.stop();
        throw error;
      }
    },
  },
];

describe.each(BACKENDS)('a client-node informer on $name', (backend) => {
  let stopBackend: (() => Promise<void>) | undefined;
  let server: TestServer;
  let informer: InformerProcess | undefined;

  const kubectl = async (args: string[], input?: string): Promise<string> => {
    const result = await server.kubectl(['-n', NAMESPACE, ...args], { input });
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed: ${result.stderr}`);
    return result.stdout;
  };

  beforeAll(async () => {
    // History is compacted every second, so a paused informer's resource version expires soon.
    const started = await backend.start(['--etcd-compaction-interval=1s']);
    server = started.server;
    stopBackend = started.stop;
    await kubectl(['create', 'namespace', NAMESPACE]);
  });

  afterAll(async () => {
    await informer?.stop();
    await stopBackend?.();
  });

  it('lists, then sees every change made with kubectl, in order', async () => {
    informer = InformerProcess.start(server.kubeconfig, NAMESPACE);
    expect(summary([await informer.next()])).toEqual(['list []']);

    await kubectl(['create', '-f', '-'], `${podManifest('pod-a')}\n---\n${podManifest('pod-b')}`);
    await kubectl(['label', 'pod', 'pod-a', 'tier=web']);
    await kubectl(['delete', 'pod', 'pod-b']);
    informer.send('snapshot');

    const events = await informer.take(5);
    expect(summary(events)).toEqual([
      'add pod-a',
      'add pod-b',
      'update pod-a tier=web',
      'delete pod-b',
      'snapshot [pod-a]',
    ]);
    // Each event's resource version is newer than the one before it.
    const revisions = events.slice(0, 4).map((e) => Number(e.resourceVersion));
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(revisions.length);
  });

  it('re-lists after its resource version is compacted (410) and ends with the pods that exist', async () => {
    if (informer === undefined) throw new Error('the informer of the first test is not running');
    informer.send('stop');
    const stopped = await informer.next();
    expect(stopped.event).toBe('stopped');
    const pausedAt = Number(stopped.resourceVersion);

    // Changes the paused informer misses, then compaction past them.
    await kubectl(['create', '-f', '-'], podManifest('pod-c'));
    await kubectl(['delete', 'pod', 'pod-a']);
    await waitUntilCompactedPast(server, pausedAt);

    informer.send('start');
    expect((await informer.next()).event).toBe('starting');
    // Resuming the watch from `pausedAt` is answered 410; the informer drops its resource
    // version and lists again: pod-a gone, pod-c new.
    expect(summary(await informer.take(3))).toEqual(['list [pod-c]', 'delete pod-a tier=web', 'add pod-c']);

    // It watches again from the new list.
    await kubectl(['label', 'pod', 'pod-c', 'tier=db']);
    expect(summary([await informer.next()])).toEqual(['update pod-c tier=db']);
    informer.send('snapshot');
    expect(summary([await informer.next()])).toEqual(['snapshot [pod-c]']);
    expect((await kubectl(['get', 'pods', '-o', 'name'])).trim()).toBe('pod/pod-c');
  });
});

/**
 * Waits until a watch from `revision` would be answered 410: the read of `revision + 1` exactly
 * is, since a watch from N needs every revision after N.
 */
async function waitUntilCompactedPast(server: TestServer, revision: number): Promise<void> {
  await waitUntil(
    `revision ${revision + 1} compacted`,
    async () => {
      const read = await server.request(
        'GET',
        `/api/v1/namespaces/${NAMESPACE}/pods?resourceVersion=${revision + 1}&resourceVersionMatch=Exact`,
      );
      if (read.status !== 200 && read.status !== 410)
        throw new Error(`exact read at ${revision + 1}: ${read.status} ${read.body}`);
      return read.status === 410;
    },
    COMPACTION_TIMEOUT_MS,
    100,
  );
}
