/**
 * A ConfigMap over 1 MiB is refused as the whole object's error, whose path the reference
 * writes `[]` (field.NewPath("")): `ConfigMap "big" is invalid: []: Too long: ...`, asked of
 * kube-apiserver 1.34.4.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite();

test('a ConfigMap one byte over 1 MiB is refused for the whole object', async () => {
  const answer = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { a: 'x'.repeat(1_048_577) },
    }),
    headers: { 'content-type': 'application/json' },
  });
  expect(answer.status).toBe(422);
  const status = answer.json<{ message: string; details: { causes: { field: string }[] } }>();
  expect(status.message).toBe('ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes');
  expect(status.details.causes.map((cause) => cause.field)).toEqual(['[]']);
});
