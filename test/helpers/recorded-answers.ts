/**
 * Requests recorded with the reference's answers (a fixture of steps, e.g.
 * test/server/status/fixtures/request-path-quoting.json): sent to a server one at a time in order,
 * each answer reduced to what is compared. tools/reference/record-answers.ts records a fixture's
 * answers from kube-apiserver and shows where capstan answers otherwise.
 */
import { readFileSync } from 'node:fs';
import type { HttpResult } from './server';
import { retryUntil } from './wait-for';
import { maskedJson, maskedText, VOLATILE_TEXT, type Masks, type TextMask } from './masked-json';

/**
 * The flags both servers run with, recording and replaying: no ServiceAccount admission plugin,
 * since with no controller manager no namespace has its `default` ServiceAccount (a fixture
 * marked `serviceAccounts` runs the plugin, its pods naming the accounts its steps create).
 */
export const RECORDING_FLAGS: readonly string[] = ['--disable-admission-plugins=ServiceAccount'];

export interface Step {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** Text sent as it is (a `\ud800` in JSON text is an escape the server decodes). */
  readonly body?: string;
  /** Bytes that are not UTF-8. */
  readonly bodyBase64?: string;
  readonly contentType?: string;
  /** The Accept header (a Table: `application/json;as=Table;v=v1;g=meta.k8s.io`); absent: none sent. */
  readonly accept?: string;
  /** More headers, sent as they are (`impersonate-user`: the step asked as that user). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly setup?: boolean;
  /**
   * Asked again until it answers 200, or the code given (a custom resource's endpoints come up a
   * moment later; the reference's admission reads webhook configurations from an informer).
   */
  readonly retry?: boolean | number;
  /** `status`: the answer's status only; `warnings`: the Warning headers it sent, not its body. */
  readonly only?: 'status' | 'warnings';
  /** The answer holds what differs between any two runs (a time, a uid): compared with those masked. */
  readonly volatile?: boolean;
  readonly code: number;
  readonly answer?: unknown;
}

/**
 * A fixture: its steps, as a list, or with the flags both servers need for them besides
 * RECORDING_FLAGS (`{"flags": ["--authorization-mode=Node,RBAC"], "steps": [...]}`).
 */
export interface Fixture {
  /** Only the fixture's own flags: RECORDING_FLAGS go before them. */
  readonly flags: readonly string[];
  /** Its steps call the test's admission webhook (test/helpers/answering-webhook.ts). */
  readonly webhook: boolean;
  /**
   * Both servers run the ServiceAccount admission plugin (RECORDING_FLAGS left out): the steps
   * create each namespace's accounts themselves, as no controller manager runs.
   */
  readonly serviceAccounts: boolean;
  readonly steps: readonly Step[];
}

export function readFixture(file: string): Fixture {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as
    Step[] | { flags?: string[]; webhook?: boolean; serviceAccounts?: boolean; steps: Step[] };
  return Array.isArray(parsed)
    ? { flags: [], webhook: false, serviceAccounts: false, steps: parsed }
    : {
        flags: parsed.flags ?? [],
        webhook: parsed.webhook ?? false,
        serviceAccounts: parsed.serviceAccounts ?? false,
        steps: parsed.steps,
      };
}

/** A fixture as it is written: a list of steps when it has nothing else. */
export function fixtureText(fixture: Omit<Fixture, 'steps'>, steps: readonly unknown[]): string {
  const { flags, webhook, serviceAccounts } = fixture;
  const plain = flags.length === 0 && !webhook && !serviceAccounts;
  const text = plain
    ? steps
    : {
        ...(flags.length > 0 ? { flags } : {}),
        ...(webhook ? { webhook } : {}),
        ...(serviceAccounts ? { serviceAccounts } : {}),
        steps,
      };
  return `${JSON.stringify(text, null, 2)}\n`;
}

/** The flags a server answers a fixture with. */
export function fixtureFlags(fixture: Fixture): string[] {
  return fixture.serviceAccounts ? [...fixture.flags] : [...RECORDING_FLAGS, ...fixture.flags];
}

export interface Answer {
  readonly code: number;
  readonly answer: unknown;
}

type Requester = (
  method: string,
  path: string,
  options: { body?: string | Buffer; headers?: Record<string, string> },
) => Promise<HttpResult>;

/**
 * Sends the steps in order, one at a time (the setup steps make what the later ones read), answers
 * by step name. `substitutions`: placeholders in the steps' paths and bodies and what they stand
 * for this run (a webhook's address), which the answers name by placeholder again.
 */
export async function sendSteps(
  request: Requester,
  steps: readonly Step[],
  substitutions: Readonly<Record<string, string>> = {},
): Promise<Map<string, Answer>> {
  const replacements = Object.entries(substitutions);
  const filled = (text: string) => replacements.reduce((out, [name, value]) => out.replaceAll(name, value), text);
  const named = (text: string) => replacements.reduce((out, [name, value]) => out.replaceAll(value, name), text);
  const answers = new Map<string, Answer>();
  for (const step of steps) {
    const body =
      step.bodyBase64 !== undefined
        ? Buffer.from(step.bodyBase64, 'base64')
        : step.body === undefined
          ? undefined
          : filled(step.body);
    const headers: Record<string, string> =
      body === undefined ? {} : { 'content-type': step.contentType ?? 'application/json' };
    if (step.accept !== undefined) headers.accept = step.accept;
    Object.assign(headers, step.headers);
    const ask = () => request(step.method, filled(step.path), { body, headers });
    const wanted = step.retry === true ? 200 : step.retry;
    const reply =
      wanted === undefined || wanted === false
        ? await ask()
        : await retryUntil(ask, (answer) => answer.status === wanted, 60_000);
    const parsed = parsedBody(named(reply.body));
    const warnings = reply.headers.warning;
    answers.set(step.name, {
      code: reply.status,
      answer:
        step.only === 'status'
          ? (parsed as { status?: unknown }).status
          : step.only === 'warnings'
            ? [warnings ?? []].flat().map(named)
            : parsed,
    });
  }
  return answers;
}

/** A body as JSON; a watch's stream as the list of its events; anything else as its text. */
function parsedBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    const lines = body.split('\n').filter((line) => line !== '');
    try {
      return lines.length > 1 ? lines.map((line) => JSON.parse(line) as unknown) : body;
    } catch {
      return body;
    }
  }
}

/**
 * The stored object's metadata, which a patch's message prints: its uid, version and time differ
 * between two servers, and the order of its members is the storage's, not what is checked here.
 */
const STORED_METADATA = /\\"metadata\\":\{[^{}]*\}/g;

/** A Table's columns that print how long ago something happened: the two servers' clocks differ there. */
const ELAPSED_COLUMNS = new Set(['Age', 'Last Seen', 'First Seen', 'Last Schedule', 'Duration']);

interface TableShape {
  readonly kind: 'Table';
  readonly columnDefinitions?: readonly { readonly name?: string }[];
  readonly rows?: readonly { readonly cells?: readonly unknown[] }[];
}

/**
 * A Table with its elapsed-time cells masked, by its own columns or, for a watch's later event
 * (which the server sends without them), by the columns of the watch's first table.
 */
function withoutElapsed(table: TableShape, columns = table.columnDefinitions): TableShape {
  const elapsed = (columns ?? []).map((column) => ELAPSED_COLUMNS.has(column.name ?? ''));
  return {
    ...table,
    rows: table.rows?.map((row) => ({
      ...row,
      cells: row.cells?.map((cell, i) => (elapsed[i] ? '<elapsed>' : cell)),
    })),
  };
}

/** The Table a watch event carries, if it carries one. */
function watchedTable(event: unknown): TableShape | undefined {
  const object = (event as { object?: { kind?: unknown } } | null)?.object;
  return typeof event === 'object' && object?.kind === 'Table' ? (object as TableShape) : undefined;
}

/**
 * An answer as compared: a list by the names it holds, volatile members of a printed object
 * masked, a Table's elapsed times masked.
 */
export function comparable(answer: unknown, watchColumns?: TableShape['columnDefinitions']): unknown {
  if (typeof answer === 'string') return answer.replace(STORED_METADATA, '\\"metadata\\":{…}');
  if (Array.isArray(answer)) {
    const columns = answer.map(watchedTable).find((table) => table?.columnDefinitions)?.columnDefinitions;
    return answer.map((element) => comparable(element, columns));
  }
  if (typeof answer !== 'object' || answer === null) return answer;
  const watched = watchedTable(answer);
  if (watched)
    return { ...answer, object: comparable(withoutElapsed(watched, watched.columnDefinitions ?? watchColumns)) };
  const isTable = (answer as { kind?: unknown }).kind === 'Table';
  const record = (isTable ? withoutElapsed(answer as TableShape) : answer) as Record<string, unknown>;
  if (Array.isArray(record.items))
    return {
      kind: record.kind,
      names: record.items.map((item: { metadata?: { name?: string } }) => item.metadata?.name),
    };
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, comparable(value)]));
}

/** What differs between two runs beyond any text's volatile parts: random names, elapsed times, versions. */
const VOLATILE: readonly TextMask[] = [
  ...VOLATILE_TEXT,
  // The ServiceAccount plugin's token volume, named with five random characters.
  [/\bkube-api-access-[a-z0-9]{5}\b/g, 'kube-api-access-<random>'],
  // A table cell's time since an event (a pod's last restart): `3 (2y216d ago)`.
  [/\((\d+[ydhms])+ ago\)/g, '(<elapsed> ago)'],
  // A Table's elapsed-time cell in YAML, a list item holding only a duration: `  - 2y337d`.
  [/^(\s*- )(\d+[ydhms])+$/gm, '$1<elapsed>'],
  // A resourceVersion printed in a message, in quoted JSON (at any depth of escapes) or as text.
  [/(resourceVersion\\*"?:\s*\\*"?|current: |ResourceVersion in record \()\d+/g, '$1<version>'],
];

/** An answer with its volatile values masked, every resourceVersion too. */
export function withoutVolatile(answer: unknown): unknown {
  return maskedJson(answer, ANSWER_MASKS);
}

const ANSWER_MASKS: Masks = {
  text: (text) => maskedText(text, VOLATILE),
  member: (name, value, walk) =>
    name === 'resourceVersion'
      ? '<version>'
      : name === 'managedFields' && Array.isArray(value)
        ? walk(inMaskedTimeOrder(value))
        : walk(value),
};

interface EntryShape {
  readonly operation?: string;
  readonly time?: string;
  readonly manager?: string;
  readonly apiVersion?: string;
  readonly subresource?: string;
}

/**
 * managedFields entries in the order the servers sort them, with their times masked: entries of
 * one operation sort by the second they were written, which two runs split differently, so the
 * entries with a time compare in the order of their managers; one without a time still comes first.
 */
function inMaskedTimeOrder(entries: readonly EntryShape[]): EntryShape[] {
  const rank = (entry: EntryShape) =>
    [entry.operation, entry.time === undefined ? 0 : 1, entry.manager, entry.apiVersion, entry.subresource]
      .map(String)
      .join('\u0000');
  return [...entries].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
}
