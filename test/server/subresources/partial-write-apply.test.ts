/**
 * Server-side apply through pods/resize and pods/ephemeralcontainers, as kube-apiserver 1.34.4
 * answered it (fixtures/recorded-partial-write-apply.json): their stores keep the pod's own reset
 * fields, so an apply there may own anything but status, and a spec it changes raises generation. Its conflicts are counted over the whole
 * configuration (an image the creator owns as well as the resources), and the applier is recorded
 * as owning all it applied, labels the write then drops included, with the subresource named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

type Json = Record<string, unknown>;

interface Case {
  readonly pod: { readonly metadata: { readonly name: string } };
  readonly subresource: string;
  readonly force: boolean;
  readonly config: Json;
  readonly code: number;
  readonly message?: string;
  /** Without their times. */
  readonly managedFields?: readonly Json[];
  readonly labels?: Json | null;
  readonly generation?: number;
  /** The pod spec's containers, ephemeralContainers and activeDeadlineSeconds (null: none). */
  readonly spec?: Json;
}

const NS = '/api/v1/namespaces/default/pods';
const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-partial-write-apply.json'), 'utf8')) as Record<
    string,
    Case
  >,
);

// This server runs no service-account controller, so no `default` account: its pods are not the point here.
const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount'], 30_000);

function outcome(code: number, body: Json): Json {
  if (code >= 300) return { code, message: body.message };
  const metadata = body.metadata as Json;
  const spec = body.spec as Json;
  return {
    code,
    managedFields: (metadata.managedFields as Json[]).map(({ time: _time, ...entry }) => entry),
    labels: metadata.labels ?? null,
    generation: metadata.generation,
    spec: Object.fromEntries(
      ['containers', 'ephemeralContainers', 'activeDeadlineSeconds'].map((member) => [member, spec[member] ?? null]),
    ),
  };
}

test.each(recorded)('%s', async (_name, c) => {
  const create = await server.request('POST', NS, {
    body: JSON.stringify(c.pod),
    headers: { 'Content-Type': 'application/json' },
  });
  expect(create.status).toBe(201);
  const query = `fieldManager=applier${c.force ? '&force=true' : ''}`;
  const answer = await server.request('PATCH', `${NS}/${c.pod.metadata.name}/${c.subresource}?${query}`, {
    body: JSON.stringify(c.config),
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  });
  const { pod: _pod, subresource: _subresource, force: _force, config: _config, ...expected } = c;
  expect(outcome(answer.status, answer.json<Json>())).toEqual(expected);
});
