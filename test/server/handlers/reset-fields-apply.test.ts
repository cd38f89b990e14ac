/**
 * Who owns what after applies through /status and to the main resource of each kind with a
 * status subresource, as kube-apiserver 1.34.4 recorded it (fixtures/recorded-reset-fields.json):
 * a status apply owns all it sends but its status strategy's reset fields (spec for most kinds;
 * a Deployment's labels too; all metadata of a VolumeAttachment), and its conflicts are counted
 * over the same fields; a main apply owns nothing of the status it sends. Merge patches through
 * either endpoint are recorded by the same rule, and a CSR's and a custom resource's status
 * applies by their own strategies' (a CSR's conditions are reset; a custom resource's spec only).
 * A PodCertificateRequest's main strategy resets nothing (fixtures/recorded-pcr-reset-fields.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { inManagerOrder, withEntriesInManagerOrder } from '../../helpers/managed-fields-order';
import { waitUntil } from '../../helpers/wait-for';
import { PCR_FLAGS } from '../registry/pod-certificate-request-updates';

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

/** Replays a recorded fixture, step by step, on a server started with `flags`. */
function replay(fixture: string, flags: readonly string[]): void {
  const steps = JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as readonly Step[];
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
          body: JSON.stringify(step.body),
          headers: { 'Content-Type': step.type },
        });
        answered.push(outcome(step, result.status, result.json<Json>()));
      }
      expect(answered[index]).toEqual(withEntriesInManagerOrder(steps[index].answer));
    },
  );
}

describe('kinds with a status subresource', () => {
  // No service-account controller runs here (nor did in the recording): pods need no account.
  replay('recorded-reset-fields.json', ['--disable-admission-plugins', 'ServiceAccount']);
});

describe('PodCertificateRequests, whose main strategy resets nothing', () => {
  // The creator owns the status it sends, and a main apply of that status conflicts with it.
  replay('recorded-pcr-reset-fields.json', PCR_FLAGS);
});
