/**
 * Deleting a CRD on a whole in-process replica: the CRD turns Terminating and its objects are
 * deleted, but one held by its own finalizer keeps the CRD (and its endpoints) until that
 * finalizer goes; meanwhile no new object may be created.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitUntil } from '../../helpers/wait-for';

const server = inProcessServerForSuite();

// JSON from the server under test
async function call(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: any }> {
  const answer = await server.request(
    method,
    path,
    body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': contentType } },
  );
  // A group no longer served answers Go's plain-text 404, as the reference's does.
  const json = String(answer.headers['content-type'] ?? '').startsWith('application/json');
  return { status: answer.status, body: json ? answer.json() : answer.body };
}

const CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/things.example.com';
const THINGS = '/apis/example.com/v1/namespaces/default/things';

test('a CRD being deleted deletes its objects, waits for their finalizers, refuses creates, then goes with its endpoints', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'things', kind: 'Thing' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  await waitUntil('things are served', async () => (await call('GET', THINGS)).status === 200, 10_000, 50);
  expect(
    (await call('POST', THINGS, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'free' } })).status,
  ).toBe(201);
  expect(
    (
      await call('POST', THINGS, {
        apiVersion: 'example.com/v1',
        kind: 'Thing',
        metadata: { name: 'held', finalizers: ['example.com/hold'] },
      })
    ).status,
  ).toBe(201);

  expect((await call('DELETE', CRD)).status).toBe(200);
  await waitUntil(
    'the free object is gone and the held one terminating',
    async () => {
      const list = await call('GET', THINGS);
      return list.body.items?.length === 1 && list.body.items[0].metadata.deletionTimestamp !== undefined;
    },
    10_000,
    50,
  );
  const terminating = await call('GET', CRD);
  expect(terminating.body.metadata.deletionTimestamp).toBeDefined();
  expect(terminating.body.status.conditions).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionInProgress',
        message: 'CustomResource deletion is in progress',
      }),
    ]),
  );
  await waitUntil(
    'creates are refused',
    async () =>
      (await call('POST', THINGS, { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 'late' } }))
        .status === 403,
    10_000,
    50,
  );
  const refused = await call('POST', THINGS, {
    apiVersion: 'example.com/v1',
    kind: 'Thing',
    metadata: { name: 'late' },
  });
  // As the reference 1.34 refuses it: its admission wrapper for a terminating definition.
  expect(refused.body).toMatchObject({
    reason: 'Forbidden',
    message:
      'things.example.com "late" is forbidden: create not allowed while custom resource definition is terminating',
  });

  expect(
    (await call('PATCH', `${THINGS}/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json')).status,
  ).toBe(200);
  await waitUntil('the CRD is gone', async () => (await call('GET', CRD)).status === 404, 10_000, 50);
  await waitUntil('its endpoints are gone', async () => (await call('GET', THINGS)).status === 404, 10_000, 50);
});
