/**
 * Writes whose answers carry the reference's "may not change" messages with a Go diff of the
 * internal structs: an object created, then written again (a PUT of the object as read back,
 * or through a subresource) with members changed at dotted paths, null removing one. Sent alike
 * to kube-apiserver 1.34.4 (to record fixtures/update-diff-messages.json) and to capstan (to
 * replay it): the answers are compared whole, message included.
 */
import type { HttpResult } from '../../helpers/server';

export interface UpdateStep {
  /** A subresource to write through (`ephemeralcontainers`); absent: the object itself. */
  readonly subresource?: string;
  readonly set: Readonly<Record<string, unknown>>;
}

export interface UpdateDiffCase {
  readonly name: string;
  /** The collection's path, namespaced ones in `default`. */
  readonly collection: string;
  readonly object: Record<string, unknown>;
  readonly steps: readonly UpdateStep[];
}

export interface StepAnswer {
  readonly code: number;
  readonly message: string;
}

type Request = (
  method: string,
  path: string,
  options?: { body?: string; headers?: Record<string, string> },
) => Promise<HttpResult>;

type Members = Record<string | number, unknown>;

function setAt(object: Members, path: string, value: unknown): void {
  const segments = path.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  let current = object;
  segments.slice(0, -1).forEach((segment, i) => {
    if (current[segment] == null) current[segment] = typeof segments[i + 1] === 'number' ? [] : {};
    current = current[segment] as Members;
  });
  const last = segments[segments.length - 1];
  if (value === null) delete current[last];
  else current[last] = structuredClone(value);
}

const JSON_HEADERS = { 'content-type': 'application/json' };

/** The default service account, which pods name and which no controller makes on the reference alone. */
export async function makeDefaultServiceAccount(request: Request): Promise<void> {
  const answer = await request('POST', '/api/v1/namespaces/default/serviceaccounts', {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }),
    headers: JSON_HEADERS,
  });
  if (answer.status !== 201 && answer.status !== 409) throw new Error(`service account: ${answer.body}`);
}

/** Creates the case's object, then sends each step; the answer of each (code and Status message, empty on success). */
export async function runUpdateDiffCase(request: Request, testCase: UpdateDiffCase): Promise<StepAnswer[]> {
  const name = (testCase.object.metadata as { name: string }).name;
  const created = await request('POST', testCase.collection, {
    body: JSON.stringify(testCase.object),
    headers: JSON_HEADERS,
  });
  if (created.status !== 201) throw new Error(`${testCase.name}: create answered ${created.body}`);
  const answers: StepAnswer[] = [];
  for (const step of testCase.steps) {
    const current = (await request('GET', `${testCase.collection}/${name}`)).json<Members>();
    for (const [path, value] of Object.entries(step.set)) setAt(current, path, value);
    const target = `${testCase.collection}/${name}${step.subresource === undefined ? '' : `/${step.subresource}`}`;
    const answer = await request('PUT', target, { body: JSON.stringify(current), headers: JSON_HEADERS });
    answers.push({
      code: answer.status,
      message: answer.status < 300 ? '' : (answer.json<{ message?: string }>().message ?? ''),
    });
  }
  return answers;
}
