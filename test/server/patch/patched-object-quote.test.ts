/**
 * The patched object a 422 quotes, as kube-apiserver 1.34.4 quoted it (asked on 2026-11-30):
 * a JSON patch of `data` to a number on a ConfigMap with labels. The containers the patch
 * opened print their keys sorted; the metadata it did not open keeps the bytes the reference's
 * codec wrote, in Go's ObjectMeta order.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite();

/** The reference's quote, its member names only (its uid, times and versions are its own). */
const RECORDED = {
  top: ['apiVersion', 'data', 'kind', 'metadata'],
  metadata: ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'labels', 'managedFields'],
};

function quotedObject(message: string): Record<string, unknown> {
  const quoted = /Invalid value: ("(?:[^"\\]|\\.)*"): json: /.exec(message)?.[1];
  expect(quoted).toBeDefined();
  return JSON.parse(JSON.parse(quoted!) as string) as Record<string, unknown>;
}

it('quotes an unopened metadata in Go field order', async () => {
  const path = '/api/v1/namespaces/default/configmaps';
  const created = await server.request('POST', path, {
    body: JSON.stringify({ metadata: { name: 'quoted', labels: { a: 'b' } }, data: { k: 'v' } }),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const answer = await server.request('PATCH', `${path}/quoted`, {
    body: JSON.stringify([{ op: 'replace', path: '/data', value: 5 }]),
    headers: { 'content-type': 'application/json-patch+json' },
  });
  const status = JSON.parse(answer.body) as { code: number; message: string };
  expect(status.code).toBe(422);
  const object = quotedObject(status.message);
  expect({
    top: Object.keys(object),
    metadata: Object.keys(object.metadata as Record<string, unknown>),
  }).toEqual(RECORDED);
});
