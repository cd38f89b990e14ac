/**
 * Pods the kubelet does not resize in place, refused by pods/resize with only that reason, in the
 * reference's order (pod-level resources, a static pod, a Windows pod), even where the resize
 * would also change the QoS class, and after only the generic metadata checks where a write that
 * adds a container keeps its bad labels: what kube-apiserver 1.34.4 answered to the same pods and
 * patches (fixtures/recorded-unresizable-pods.json), with Linux pods as the controls.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const NS = '/api/v1/namespaces/default/pods';

interface Case {
  readonly object: { readonly metadata: { readonly name: string } };
  readonly patch: unknown;
  readonly code: number;
  readonly message?: string;
  readonly causes?: readonly unknown[];
}

const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-unresizable-pods.json'), 'utf8')) as Record<
    string,
    Case
  >,
);

// This server runs no service-account controller, so no `default` account: its pods are not the point here.
const server = inProcessServerForSuite(['--disable-admission-plugins', 'ServiceAccount'], 30_000);

test.each(recorded)('%s', async (_name, { object, patch, code, message, causes }) => {
  const create = await server.request('POST', NS, {
    body: JSON.stringify(object),
    headers: { 'Content-Type': 'application/json' },
  });
  expect(create.status).toBe(201);
  const resize = await server.request('PATCH', `${NS}/${object.metadata.name}/resize`, {
    body: JSON.stringify(patch),
    headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
  });
  expect(resize.status).toBe(code);
  if (code >= 300) {
    const status = resize.json<{ message: string; details: { causes: unknown[] } }>();
    expect(status.message).toBe(message);
    expect(status.details.causes).toEqual(causes);
  }
});
