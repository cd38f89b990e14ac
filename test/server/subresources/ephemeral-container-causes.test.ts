/**
 * Ephemeral containers refused through pods/ephemeralcontainers get the causes kube-apiserver
 * 1.34.4 gave for the same writes (fixtures/recorded-ephemeral-container-causes.json, recorded
 * from it: each pod created, then written back with the ephemeral containers), in its order:
 * any container's rules, an image without surrounding whitespace, a name unique among all
 * containers, a target among the regular and init containers, none of the fields an ephemeral
 * container may not set (ports, resources, resize and restart policies, probes, lifecycle; an
 * empty list counts as set, empty resources not), and no sub-path mounts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';

interface Case {
  readonly name: string;
  readonly object: { metadata: { name: string }; spec: Record<string, unknown> };
  readonly ephemeralContainers: readonly Record<string, unknown>[];
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes: readonly string[];
}

interface Status {
  reason?: string;
  details?: { causes?: { field: string; message: string }[] };
}

const CASES = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'recorded-ephemeral-container-causes.json'), 'utf8'),
) as Case[];
const PODS = '/api/v1/namespaces/default/pods';
const JSON_BODY = { 'Content-Type': 'application/json' };

let server: InProcessServer;

beforeAll(async () => {
  // No service-account controller runs here, so no `default` account: the reference was asked without the plugin too.
  server = await startInProcessServer(['--disable-admission-plugins', 'ServiceAccount']);
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const made = await server.request('POST', PODS, { body: JSON.stringify(c.object), headers: JSON_BODY });
  expect(made.status).toBe(201);
  const pod = made.json<{ spec: Record<string, unknown> }>();
  pod.spec.ephemeralContainers = c.ephemeralContainers;
  const answer = await server.request('PUT', `${PODS}/${c.object.metadata.name}/ephemeralcontainers`, {
    body: JSON.stringify(pod),
    headers: JSON_BODY,
  });
  const status = answer.json<Status>();
  expect({ code: answer.status, reason: status.reason }).toEqual({ code: 422, reason: 'Invalid' });
  expect((status.details?.causes ?? []).map(({ field, message }) => `${field}: ${message}`)).toEqual(c.causes);
});
