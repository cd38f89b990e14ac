/**
 * Server-side apply through certificatesigningrequests/approval, as kube-apiserver 1.34.4
 * answered it (fixtures/recorded-approval-apply.json): the approval's store resets only spec and
 * status.certificate, so the applier owns its labels and conditions, conflicts over labels another
 * manager set, and neither owns nor conflicts over the spec it sent. Its creator owns no spec
 * either (csr-reset-fields.test.ts), only labels it set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

type Json = Record<string, unknown>;

interface Case {
  readonly csr: { readonly metadata: { readonly name: string } };
  readonly force: boolean;
  readonly config: Json;
  readonly code: number;
  readonly message?: string;
  /** Without their times. */
  readonly managedFields?: readonly Json[];
  readonly labels?: Json | null;
  readonly usages?: readonly string[];
  /** Without their times. */
  readonly conditions?: readonly Json[];
  readonly certificate?: string | null;
}

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-approval-apply.json'), 'utf8')) as Record<string, Case>,
);

const server = inProcessServerForSuite([], 30_000);

function withoutTimes(entries: readonly Json[], times: readonly string[]): Json[] {
  return entries.map((entry) => Object.fromEntries(Object.entries(entry).filter(([key]) => !times.includes(key))));
}

function outcome(code: number, body: Json): Json {
  if (code >= 300) return { code, message: body.message };
  const metadata = body.metadata as Json;
  const status = body.status as Json;
  return {
    code,
    managedFields: withoutTimes(metadata.managedFields as Json[], ['time']),
    labels: metadata.labels ?? null,
    usages: (body.spec as Json).usages,
    conditions: withoutTimes(status.conditions as Json[], ['lastUpdateTime', 'lastTransitionTime']),
    certificate: status.certificate ?? null,
  };
}

test.each(recorded)('%s', async (_name, c) => {
  const create = await server.request('POST', `${CSRS}?fieldManager=creator`, {
    body: JSON.stringify(c.csr),
    headers: { 'Content-Type': 'application/json' },
  });
  expect(create.status).toBe(201);
  const query = `fieldManager=applier${c.force ? '&force=true' : ''}`;
  const answer = await server.request('PATCH', `${CSRS}/${c.csr.metadata.name}/approval?${query}`, {
    body: JSON.stringify(c.config),
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  });
  const { csr: _csr, force: _force, config: _config, ...expected } = c;
  expect(outcome(answer.status, answer.json<Json>())).toEqual(expected);
});
