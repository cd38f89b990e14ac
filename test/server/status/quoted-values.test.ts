/**
 * Messages print strings as the reference prints them (fixtures/quoted-values.json, recorded from
 * kube-apiserver 1.34.4, built with Go 1.26.8): a field error's string value, and the name in a
 * message's subject, as Go's `%q` quotes them, escaping what Go's Unicode 15 tables do not call
 * printable (controls, format characters, non-ASCII spaces, characters assigned since, astral
 * ones as `\U`); a lone surrogate a JSON escape made as U+FFFD, as Go decodes it; and the value of
 * a named string type (a Service's type) as JSON, which leaves those characters as they are.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** JSON text, sent as it is: a `\ud800` in it is an escape the server decodes. */
  readonly body?: string;
  readonly code: number;
  readonly status: unknown;
}

const CASES: readonly Case[] = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'quoted-values.json'), 'utf8'),
) as Case[];

const server = inProcessServerForSuite();

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const answer = await server.request(
    c.method,
    c.path,
    c.body === undefined ? {} : { body: c.body, headers: { 'content-type': 'application/json' } },
  );
  expect({ code: answer.status, status: answer.json() }).toEqual({ code: c.code, status: c.status });
});
