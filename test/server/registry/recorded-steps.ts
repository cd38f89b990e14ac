/**
 * Requests recorded from kube-apiserver 1.34.4 in sequence and replayed against capstan: each
 * case may first put an object in storage as it is, past the strategy (as an older server or
 * another writer left it, which no request of today's could write), then sends its steps to the
 * collection (of a core resource) or below it. The answer kept of each step is the code and, of a refusal, the
 * Status's message and causes; of a success, the warning and what the test shows of the body.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../../api/objects';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import type { HttpResult } from '../../helpers/server';

type Json = Record<string, unknown>;

interface Step {
  readonly method: string;
  /** Below the collection: empty for the collection itself, else a name and any subresource. */
  readonly path: string;
  readonly body: unknown;
  readonly type?: string;
}

interface Case {
  readonly stored?: KubeObject;
  readonly steps: readonly Step[];
  readonly answers: readonly Json[];
}

export interface RecordedSteps {
  /** The fixture's path. */
  readonly fixture: string;
  readonly resource: string;
  /** The namespace of a namespaced resource. */
  readonly namespace?: string;
  /** What a success shows of the object answered. */
  readonly shown: (object: Json) => Json;
  /** The server's flags. */
  readonly flags?: readonly string[];
}

export function replayRecordedSteps({ fixture, resource, namespace, shown, flags }: RecordedSteps): void {
  const recorded = Object.entries(JSON.parse(readFileSync(fixture, 'utf8')) as Record<string, Case>);
  const collection = `/api/v1/${namespace === undefined ? '' : `namespaces/${namespace}/`}${resource}`;
  let server: InProcessServer;

  beforeAll(async () => {
    server = await startInProcessServer(flags);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  async function store(object: KubeObject): Promise<void> {
    const type = server.plane.registry.find({ group: '', version: 'v1' }, resource)!;
    const metadata = { ...object.metadata, namespace, uid: randomUUID(), creationTimestamp: new Date().toISOString() };
    await server.plane.storageFor(type).create({ namespace, name: metadata.name! }, { ...object, metadata });
  }

  function answerOf(result: HttpResult): Json {
    const body = result.json<Json>();
    if (result.status >= 300) {
      const details = body.details as Json;
      return { code: result.status, message: body.message, causes: details.causes };
    }
    return { code: result.status, warning: result.headers.warning ?? null, ...shown(body) };
  }

  test.each(recorded)('%s', async (_name, c) => {
    if (c.stored !== undefined) await store(c.stored);
    const answers: Json[] = [];
    for (const step of c.steps) {
      const result = await server.request(step.method, step.path === '' ? collection : `${collection}/${step.path}`, {
        body: JSON.stringify(step.body),
        headers: { 'Content-Type': step.type ?? 'application/json' },
      });
      answers.push(answerOf(result));
    }
    expect(answers).toEqual(c.answers);
  });
}
