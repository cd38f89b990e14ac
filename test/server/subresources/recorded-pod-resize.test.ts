/**
 * pods/resize as kube-apiserver 1.34.4 answered the same writes (fixtures/recorded-pod-resize.json,
 * recorded from it): which changes of a container's resources a resize takes (cpu and memory of
 * containers and sidecars, no request or limit removed, the QoS class kept, no container added,
 * removed, renamed or reordered, no other field, resize policies included), the errors of a
 * refused one in the reference's order, and, of an accepted one, the containers, labels,
 * generation and QoS class it leaves; no warning either way. Each case creates its pod, may give
 * it a status first, then patches pods/resize (strategic unless the case says merge or JSON
 * patch) or PUTs a whole pod there.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

type Json = Record<string, unknown>;

interface Case {
  readonly pod: { readonly metadata: { readonly name: string } };
  readonly status?: Json;
  readonly patchType?: keyof typeof PATCH_TYPES;
  readonly patch: unknown;
  readonly code: number;
  /** The Warning headers of the answer. */
  readonly warnings: readonly string[];
  readonly message?: string;
  readonly reason?: string;
  readonly causes?: readonly unknown[];
  readonly containers?: readonly unknown[];
  readonly initContainers?: readonly unknown[];
  readonly generation?: number;
  readonly labels?: Json | null;
  readonly qosClass?: string;
}

const PATCH_TYPES = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  // Not a patch: the case's `patch` is the whole pod, PUT.
  put: 'application/json',
} as const;

const NS = '/api/v1/namespaces/default/pods';
const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-pod-resize.json'), 'utf8')) as Record<string, Case>,
);

// This server runs no service-account controller, so no `default` account: its pods are not the point here.
const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount'], 30_000);

/** What the reference's answer was recorded as: the Status of a refusal, the resized pod's parts otherwise. */
function outcome(code: number, body: Json, warning: string | string[] | undefined): Json {
  const warnings = warning === undefined ? [] : [warning].flat();
  if (code >= 300) {
    const details = body.details as { causes?: unknown[] } | undefined;
    return { code, warnings, message: body.message, reason: body.reason, causes: details?.causes };
  }
  const spec = body.spec as Json;
  const metadata = body.metadata as Json;
  return {
    code,
    warnings,
    containers: spec.containers,
    initContainers: spec.initContainers,
    generation: metadata.generation,
    labels: metadata.labels ?? null,
    qosClass: (body.status as Json).qosClass,
  };
}

test.each(recorded)('%s', async (_name, c) => {
  const path = `${NS}/${c.pod.metadata.name}`;
  const create = await server.request('POST', NS, {
    body: JSON.stringify(c.pod),
    headers: { 'Content-Type': 'application/json' },
  });
  expect(create.status).toBe(201);
  if (c.status !== undefined) {
    const status = await server.request('PATCH', `${path}/status`, {
      body: JSON.stringify({ status: c.status }),
      headers: { 'Content-Type': PATCH_TYPES.merge },
    });
    expect(status.status).toBe(200);
  }
  const resize = await server.request(c.patchType === 'put' ? 'PUT' : 'PATCH', `${path}/resize`, {
    body: JSON.stringify(c.patch),
    headers: { 'Content-Type': PATCH_TYPES[c.patchType ?? 'strategic'] },
  });
  const { pod: _pod, status: _status, patchType: _patchType, patch: _patch, ...expected } = c;
  expect(outcome(resize.status, resize.json<Json>(), resize.headers.warning)).toEqual(
    expected.code >= 300 ? expected : { initContainers: undefined, ...expected },
  );
});
