/**
 * Writes whose answers carry the reference's "may not change" messages with a Go diff of the
 * internal structs: an object created, then written again (a PUT of the object as read back,
 * or through a subresource) with members changed at dotted paths, null removing one. Sent alike
 * to kube-apiserver 1.34.4 (to record fixtures/update-diff-messages.json) and to capstan (to
 * replay it): the answers are compared whole, message included.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsCall, type HttpResult } from '../../helpers/server';
import { retryUntil } from '../../helpers/wait-for';
import { changeMembers } from './recorded-update';

export interface UpdateStep {
  /** A subresource to write through (`ephemeralcontainers`); absent: the object itself. */
  readonly subresource?: string;
  /** Sent as the node `n1` (`system:node:n1`) rather than as the admin. */
  readonly asNode?: true;
  readonly set: Readonly<Record<string, unknown>>;
}

export interface UpdateDiffCase {
  readonly name: string;
  /** Objects the admin creates first, each into its collection. */
  readonly setup?: readonly { readonly collection: string; readonly object: Record<string, unknown> }[];
  /** The collection's path, namespaced ones in `default`. */
  readonly collection: string;
  readonly object: Record<string, unknown>;
  readonly steps: readonly UpdateStep[];
}

export interface StepAnswer {
  readonly code: number;
  readonly message: string;
}

export type Request = (
  method: string,
  path: string,
  options?: { body?: string; headers?: Record<string, string> },
) => Promise<HttpResult>;

/** Who sends the writes: the admin, and (for the steps that say so) the node `n1`. */
export interface Senders {
  readonly admin: Request;
  readonly node?: Request;
}

/**
 * The Node authorizer learns a node's objects from its informers: until it has seen the pod
 * that binds the claim to the node, the node's write is refused with this.
 */
const NOT_YET_RELATED = /no relationship found/;

type Members = Record<string | number, unknown>;

const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The node `n1` as a kubelet is: a client certificate of `system:node:n1` in `system:nodes`,
 * signed by openssl with the CA in `caDir` (ca.crt, ca.key, of whatever key type).
 */
export function nodeSender(url: string, serverCa: Buffer, caDir: string): Request {
  const dir = mkdtempSync(join(tmpdir(), 'node-cert-'));
  try {
    const [key, csr, cert, ext] = ['node.key', 'node.csr', 'node.crt', 'node.ext'].map((file) => join(dir, file));
    writeFileSync(ext, 'extendedKeyUsage=clientAuth\n');
    execFileSync(
      'openssl',
      [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/O=system:nodes/CN=system:node:n1',
        '-keyout',
        key,
        '-out',
        csr,
      ],
      { stdio: 'ignore' },
    );
    execFileSync(
      'openssl',
      [
        'x509',
        '-req',
        '-in',
        csr,
        '-CA',
        join(caDir, 'ca.crt'),
        '-CAkey',
        join(caDir, 'ca.key'),
        '-CAcreateserial',
        '-CAserial',
        join(dir, 'ca.srl'),
        '-days',
        '1',
        '-extfile',
        ext,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const credentials = { ca: serverCa, cert: readFileSync(cert), key: readFileSync(key) };
    return (method, path, options = {}) => httpsCall(new URL(path, url), credentials, method, options);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The default service account, which pods name and which no controller makes on the reference alone. */
export async function makeDefaultServiceAccount(request: Request): Promise<void> {
  const answer = await request('POST', '/api/v1/namespaces/default/serviceaccounts', {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }),
    headers: JSON_HEADERS,
  });
  if (answer.status !== 201 && answer.status !== 409) throw new Error(`service account: ${answer.body}`);
}

/** Creates the case's object, then sends each step; the answer of each (code and Status message, empty on success). */
export async function runUpdateDiffCase(senders: Senders, testCase: UpdateDiffCase): Promise<StepAnswer[]> {
  const request = senders.admin;
  const name = (testCase.object.metadata as { name: string }).name;
  for (const { collection, object } of [...(testCase.setup ?? []), testCase]) {
    const created = await request('POST', collection, { body: JSON.stringify(object), headers: JSON_HEADERS });
    if (created.status !== 201) throw new Error(`${testCase.name}: create answered ${created.body}`);
  }
  const answers: StepAnswer[] = [];
  for (const step of testCase.steps) {
    const current = (await request('GET', `${testCase.collection}/${name}`)).json<Members>();
    changeMembers(current, step.set);
    const target = `${testCase.collection}/${name}${step.subresource === undefined ? '' : `/${step.subresource}`}`;
    const sender = step.asNode ? senders.node : request;
    if (sender === undefined) throw new Error(`${testCase.name}: no node to send as`);
    const answer = await retryUntil(
      () => sender('PUT', target, { body: JSON.stringify(current), headers: JSON_HEADERS }),
      (result) => !NOT_YET_RELATED.test(result.body),
      30_000,
    );
    answers.push({
      code: answer.status,
      message: answer.status < 300 ? '' : (answer.json<{ message?: string }>().message ?? ''),
    });
  }
  return answers;
}
