/**
 * The `Warning` headers of writes of built-in kinds, as their strategies send them. Each fixture
 * holds requests in order, each with the status and warnings kube-apiserver 1.34.4 answered
 * (started with `--service-cluster-ip-range=10.96.0.0/12` `--disable-admission-plugins=ServiceAccount`
 * and its default gates), word for word and in its order:
 * - address-warnings.json: addresses in a non-standard form (leading zeros, IPv4-mapped, IPv6 not
 *   in RFC 5952 form) and the other fields the same strategies warn of;
 * - workload-warnings.json: pods, pod templates and the kinds that make pods, volumes, claims and
 *   the classes that place them (deprecated node labels, annotations and volume plugins, names
 *   that are no DNS label, duplicates, fractional byte counts, null selectors).
 * The two write objects of different names, so they share one server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
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

const FIXTURES = ['address-warnings.json', 'workload-warnings.json'];

const server = inProcessServerForSuite([
  '--service-cluster-ip-range=10.96.0.0/12',
  '--disable-admission-plugins=ServiceAccount',
]);
/** The texts of a response's `299 - "<text>"` warnings, however the headers were joined. */
function warningsOf(result: HttpResult): string[] {
  const header = result.headers.warning;
  const values = Array.isArray(header) ? header : header ? header.split(/,\s*(?=299 )/) : [];
  return values.map((value) => JSON.parse(value.replace(/^299 - /, '')) as string);
}

describe.each(FIXTURES)('%s', (fixture) => {
  const cases = JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as Case[];
  // In order: later cases write the objects the earlier ones created.
  test.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const result = await server.request(c.method, c.path, {
      body: JSON.stringify(c.body),
      headers: { 'content-type': c.contentType ?? 'application/json' },
    });
    expect([result.status, warningsOf(result)]).toEqual([c.status, c.warnings]);
  });
});
