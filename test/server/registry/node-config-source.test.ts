/**
 * A Node's `spec.configSource` and `status.config` (the removed DynamicKubeletConfig), as
 * kube-apiserver 1.34.4 answered them (fixtures/recorded-node-config-source.json): a create, an
 * update or a status write that brings them anew has them dropped without a word; a node stored
 * with them (written straight to storage here, as an older server left it) keeps them, has them
 * checked on every update and status write, and hears that the feature is removed on an update.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import type { HttpResult } from '../../helpers/server';

type Json = Record<string, unknown>;

interface Step {
  readonly method: string;
  /** Under /api/v1/nodes: empty for the collection, else the node's name and any subresource. */
  readonly path: string;
  readonly body: Json;
  readonly type?: string;
}

interface Case {
  /** A node put in storage as it is, past the strategy, before the steps. */
  readonly stored?: KubeObject;
  readonly steps: readonly Step[];
  readonly answers: readonly Json[];
}

const NODES = '/api/v1/nodes';
const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-node-config-source.json'), 'utf8')) as Record<
    string,
    Case
  >,
);

let server: InProcessServer;

beforeAll(async () => {
  server = await startInProcessServer();
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

async function store(node: KubeObject): Promise<void> {
  const type = server.plane.registry.find({ group: '', version: 'v1' }, 'nodes')!;
  const metadata = { ...node.metadata, uid: randomUUID(), creationTimestamp: new Date().toISOString() };
  await server.plane.storageFor(type).create({ name: metadata.name! }, { ...node, metadata });
}

function answerOf(result: HttpResult): Json {
  const body = result.json<Json>();
  if (result.status >= 300) {
    const details = body.details as Json;
    return { code: result.status, message: body.message, causes: details.causes };
  }
  return {
    code: result.status,
    warning: result.headers.warning ?? null,
    configSource: (body.spec as Json | undefined)?.configSource ?? null,
    config: (body.status as Json | undefined)?.config ?? null,
  };
}

test.each(recorded)('%s', async (_name, c) => {
  if (c.stored !== undefined) await store(c.stored);
  const answers: Json[] = [];
  for (const step of c.steps) {
    const result = await server.request(step.method, step.path === '' ? NODES : `${NODES}/${step.path}`, {
      body: JSON.stringify(step.body),
      headers: { 'Content-Type': step.type ?? 'application/json' },
    });
    answers.push(answerOf(result));
  }
  expect(answers).toEqual(c.answers);
});
