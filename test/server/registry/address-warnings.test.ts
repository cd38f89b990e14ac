/**
 * The `Warning` headers of writes whose objects hold addresses in a non-standard form (leading
 * zeros, IPv4-mapped, IPv6 not in RFC 5952 form) and of the other fields the same strategies
 * warn of. fixtures/address-warnings.json holds the requests in order, each with the status and
 * warnings kube-apiserver 1.34.4 answered (started with `--service-cluster-ip-range=10.96.0.0/12`
 * `--disable-admission-plugins=ServiceAccount` and its default gates), word for word and in its order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import type { HttpResult } from '../../helpers/server';

interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body: unknown;
  readonly contentType?: string;
  readonly status: number;
  readonly warnings: readonly string[];
}

const CASES = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'address-warnings.json'), 'utf8')) as Case[];
let server: InProcessServer;

beforeAll(async () => {
  server = await startInProcessServer([
    '--service-cluster-ip-range=10.96.0.0/12',
    '--disable-admission-plugins=ServiceAccount',
  ]);
});
afterAll(async () => {
  await server.stop();
});

/** The texts of a response's `299 - "<text>"` warnings, however the headers were joined. */
function warningsOf(result: HttpResult): string[] {
  const header = result.headers.warning;
  const values = Array.isArray(header) ? header : header ? header.split(/,\s*(?=299 )/) : [];
  return values.map((value) => JSON.parse(value.replace(/^299 - /, '')) as string);
}

// In order: later cases write the objects the earlier ones created.
test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const result = await server.request(c.method, c.path, {
    body: JSON.stringify(c.body),
    headers: { 'content-type': c.contentType ?? 'application/json' },
  });
  expect([result.status, warningsOf(result)]).toEqual([c.status, c.warnings]);
});
