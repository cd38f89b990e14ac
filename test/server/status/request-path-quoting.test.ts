/**
 * What a client sends comes back in messages as the reference prints it
 * (fixtures/request-path-quoting.json, recorded from kube-apiserver 1.34.4): strict decoding's
 * unknown and duplicate fields (JSON, YAML keys as yaml.v2 reads them, a patch's result), a kind or
 * version it does not know, timestamps (Go's time package quotes with `\x` bytes), label and field
 * selectors (parsed as the reference's parsers parse them, odd spaces and NUL too), query
 * parameters (integers, resourceVersionMatch, fieldValidation, dryRun, fieldManager,
 * propagationPolicy), a proxy request's name, a pod's warnings (Warning headers as Node reads their
 * bytes), an apps strategy printed as Go JSON, RBAC's descriptions and resolution errors in an
 * access review, new finalizers on an object being deleted, values that are maps or lists (a
 * selector, a custom resource's duplicate or enum value) and a path Go's HTTP server cannot parse.
 * Go's `%q` escapes controls and what it does not call printable; its JSON (named string types,
 * maps, lists) escapes `<`, `>` and `&` instead. Steps marked `setup` make the state the later ones
 * read; reviews compare their `status` only, writes that warn their Warning headers only, lists the
 * names they hold, the rest the whole answer.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { retryUntil } from '../../helpers/wait-for';

interface Step {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** Text sent as it is (a `\ud800` in JSON text is an escape the server decodes). */
  readonly body?: string;
  /** Bytes that are not UTF-8. */
  readonly bodyBase64?: string;
  readonly contentType?: string;
  readonly setup?: boolean;
  /** A setup step asked again until it answers 200 (a custom resource's endpoints come up a moment later). */
  readonly retry?: boolean;
  /** `status`: the answer's status only; `warnings`: the Warning headers it sent, not its body. */
  readonly only?: 'status' | 'warnings';
  readonly code: number;
  readonly answer?: unknown;
}

const STEPS: readonly Step[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'request-path-quoting.json'), 'utf8'),
) as Step[];

/**
 * The stored object's metadata, which a patch's message prints: its uid, version and time differ
 * between two servers, and the order of its members is the storage's, not what is checked here.
 */
const STORED_METADATA = /\\"metadata\\":\{[^{}]*\}/g;

/** An answer as compared: a list by the names it holds, volatile members of a printed object masked. */
function comparable(answer: unknown): unknown {
  if (typeof answer === 'string') return answer.replace(STORED_METADATA, '\\"metadata\\":{…}');
  if (Array.isArray(answer)) return answer.map(comparable);
  if (typeof answer !== 'object' || answer === null) return answer;
  const record = answer as Record<string, unknown>;
  if (Array.isArray(record.items))
    return {
      kind: record.kind,
      names: record.items.map((item: { metadata?: { name?: string } }) => item.metadata?.name),
    };
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, comparable(value)]));
}

let server: InProcessServer;
const answers = new Map<string, { code: number; answer: unknown }>();

beforeAll(async () => {
  server = await startInProcessServer();
  // In order, one at a time: the setup steps make what the later ones read.
  for (const step of STEPS) {
    const body = step.bodyBase64 !== undefined ? Buffer.from(step.bodyBase64, 'base64') : step.body;
    const headers: Record<string, string> =
      body === undefined ? {} : { 'content-type': step.contentType ?? 'application/json' };
    const ask = () => server.request(step.method, step.path, { body, headers });
    const reply = step.retry ? await retryUntil(ask, (answer) => answer.status === 200, 60_000) : await ask();
    let parsed: unknown;
    try {
      parsed = reply.json();
    } catch {
      parsed = reply.body;
    }
    const warnings = reply.headers.warning;
    answers.set(step.name, {
      code: reply.status,
      answer:
        step.only === 'status'
          ? (parsed as { status?: unknown }).status
          : step.only === 'warnings'
            ? [warnings ?? []].flat()
            : parsed,
    });
  }
}, 180_000);
afterAll(() => server?.stop());

test.each(STEPS.filter((step) => step.setup).map((step) => [step.name, step] as const))('%s', (name, step) => {
  expect(answers.get(name)?.code).toBe(step.code);
});

test.each(STEPS.filter((step) => !step.setup).map((step) => [step.name, step] as const))('%s', (name, step) => {
  const answer = answers.get(name);
  expect({ code: answer?.code, answer: comparable(answer?.answer) }).toEqual({
    code: step.code,
    answer: comparable(step.answer),
  });
});
