/**
 * Ephemeral containers refused through pods/ephemeralcontainers get the causes kube-apiserver
 * 1.34.4 gave for the same writes (fixtures/recorded-ephemeral-container-causes.json, recorded
 * from it: each pod created, then written back with each step's ephemeral containers, the last
 * write refused), in its order: any container's rules, an image without surrounding whitespace, a
 * name unique among all containers, a target among the regular and init containers, none of the
 * fields an ephemeral container may not set (ports, resources, resize and restart policies,
 * probes, lifecycle; an empty list counts as set, empty resources not), and no sub-path mounts;
 * then existing ones removed or changed. A static pod takes none, whatever they are.
 * fixtures/recorded-ephemeral-security-context.json holds an ephemeral container's security
 * context: privileges it may not gain yet is given, its Windows options, and a hostProcess
 * container the pod's others are not.
 * fixtures/recorded-ephemeral-container-claims.json holds an ephemeral container's resource
 * claims, held to the pod's claims as any container's are before its resources are refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface Case {
  readonly name: string;
  readonly object: { metadata: { name: string }; spec: Record<string, unknown> };
  /** The ephemeral containers of each write in turn; all but the last are taken. */
  readonly steps: readonly (readonly Record<string, unknown>[])[];
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes: readonly string[];
}

interface Status {
  reason?: string;
  details?: { causes?: { field: string; message: string }[] };
}

const CASES = [
  'recorded-ephemeral-container-causes.json',
  'recorded-ephemeral-security-context.json',
  'recorded-ephemeral-container-claims.json',
].flatMap((fixture) => JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as Case[]);
const PODS = '/api/v1/namespaces/default/pods';
const JSON_BODY = { 'Content-Type': 'application/json' };

// No service-account controller runs here, so no `default` account: the reference was asked without the plugin too.
const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount'], 30_000);

test.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const made = await server.request('POST', PODS, { body: JSON.stringify(c.object), headers: JSON_BODY });
  expect(made.status).toBe(201);
  let pod = made.json<{ spec: Record<string, unknown> }>();
  const write = async (ephemeralContainers: readonly Record<string, unknown>[]) => {
    pod.spec.ephemeralContainers = ephemeralContainers;
    return server.request('PUT', `${PODS}/${c.object.metadata.name}/ephemeralcontainers`, {
      body: JSON.stringify(pod),
      headers: JSON_BODY,
    });
  };
  for (const step of c.steps.slice(0, -1)) {
    const taken = await write(step);
    expect(taken.status).toBe(200);
    pod = taken.json();
  }
  const answer = await write(c.steps[c.steps.length - 1]);
  const status = answer.json<Status>();
  expect({ code: answer.status, reason: status.reason }).toEqual({ code: 422, reason: 'Invalid' });
  expect((status.details?.causes ?? []).map(({ field, message }) => `${field}: ${message}`)).toEqual(c.causes);
});
