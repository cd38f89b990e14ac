/**
 * Recorded sequences of writes, each step's answer kept as its code and managedFields (without
 * their times), labels, annotations and any probed fields, or a refusal's message, replayed in
 * order against capstan by one test per step.
 */
import { readFileSync } from 'node:fs';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { inManagerOrder, withEntriesInManagerOrder } from '../../helpers/managed-fields-order';
import { waitUntil } from '../../helpers/wait-for';

type Json = Record<string, unknown>;

interface Step {
  /** A path to wait for until it answers 200 before the step (a custom resource's collection). */
  readonly waitFor?: string;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly type: string;
  /** Dotted paths of the answer's fields to compare, beyond labels and annotations. */
  readonly probe?: readonly string[];
  /** Code and managedFields without their times, labels, annotations and the probed fields; or the refusal's message. */
  readonly answer: Json;
}

function at(object: Json, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split('.')) value = (value as Json | undefined)?.[key];
  return value ?? null;
}

function outcome(step: Step, code: number, body: Json): Json {
  if (code >= 300) return { code, message: body.message };
  const metadata = body.metadata as Json;
  return {
    code,
    managedFields: inManagerOrder(
      ((metadata.managedFields as Json[] | undefined) ?? []).map(({ time: _time, ...entry }) => entry),
    ),
    labels: metadata.labels ?? null,
    annotations: metadata.annotations ?? null,
    ...Object.fromEntries((step.probe ?? []).map((path) => [path, at(body, path)])),
  };
}

/** Replays a recorded fixture (its path), step by step, on a server started with `flags`. */
export function replayManagedFieldsSteps(fixture: string, flags: readonly string[]): void {
  const steps = JSON.parse(readFileSync(fixture, 'utf8')) as readonly Step[];
  let server: InProcessServer;
  /** The answers of the steps run so far, in order. */
  const answered: Json[] = [];

  beforeAll(async () => {
    server = await startInProcessServer([...flags]);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  test.each(steps.map((step, index) => [`${index} ${step.method} ${step.path}`, index] as const))(
    '%s answers as the reference',
    async (_name, index) => {
      // Each step builds on the ones before it: run those first, once.
      while (answered.length <= index) {
        const step = steps[answered.length];
        const { waitFor } = step;
        if (waitFor !== undefined)
          await waitUntil(waitFor, async () => (await server.request('GET', waitFor)).status === 200);
        const result = await server.request(step.method, step.path, {
          body: step.method === 'GET' ? undefined : JSON.stringify(step.body),
          headers: { 'Content-Type': step.type },
        });
        answered.push(outcome(step, result.status, result.json<Json>()));
      }
      expect(answered[index]).toEqual(withEntriesInManagerOrder(steps[index].answer));
    },
  );
}
