/**
 * Quantities as the reference's decoder keeps them (resource.Quantity's String after
 * ParseQuantity): the text as written where its parser keeps it, else the canonical form in the
 * format the suffix chose. The answers were recorded from kube-apiserver 1.34.4 on 2026-11-29
 * (a ResourceQuota's `spec.hard` written with each text and read back); its ResourceList
 * defaulting also rounds values finer than a milli up to one, which is not this function's.
 */
import { canonicalQuantity } from '../../../server/quantity/quantity';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

it.each([
  ['1.5', '1500m'],
  ['40960Mi', '40Gi'],
  ['1000', '1k'],
  ['0.5Gi', '512Mi'],
  ['1536', '1536'],
  ['1.5Ki', '1536'],
  ['12e6', '12e6'],
  ['1e3', '1e3'],
  ['100m', '100m'],
  ['0.1', '100m'],
  ['1E', '1E'],
  ['2048Ki', '2Mi'],
  ['1023Ki', '1023Ki'],
  ['-1.5', '-1500m'],
  ['0', '0'],
  ['1.5e0', '1500e-3'],
  ['1500e-3', '1500e-3'],
  ['1e-3', '1e-3'],
  ['123456789e3', '123456789e3'],
  [' 1 ', '1'],
  ['1024', '1024'],
  ['1.0', '1'],
  ['+1', '+1'],
  ['1e21', '1e21'],
  ['0.5', '500m'],
  ['1M', '1M'],
  ['1000k', '1M'],
  ['1e9', '1e9'],
  ['0.0000000001', '1n'],
])('%j is kept as %j', (written, kept) => {
  expect(canonicalQuantity(written)).toBe(kept);
});

it.each(['abc', '1.5.5', '1Kb', '', 'e3', '1e'])('%j is no quantity', (written) => {
  expect(canonicalQuantity(written)).toBeUndefined();
});

describe('through the API', () => {
  const server = inProcessServerForSuite();

  const quota = (name: string, hard: Record<string, unknown>) =>
    server.request('POST', '/api/v1/namespaces/default/resourcequotas', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } }),
      headers: { 'Content-Type': 'application/json' },
    });

  it('stores and answers quantities as the reference writes them, numbers included', async () => {
    const created = await quota('kept', {
      'requests.cpu': '1.5',
      'requests.memory': '40960Mi',
      pods: 2,
      'limits.cpu': 0.5,
    });
    expect(created.status).toBe(201);
    const expected = { 'requests.cpu': '1500m', 'requests.memory': '40Gi', pods: '2', 'limits.cpu': '500m' };
    expect(created.json<{ spec: { hard: unknown } }>().spec.hard).toEqual(expected);
    const read = await server.request('GET', '/api/v1/namespaces/default/resourcequotas/kept');
    expect(read.json<{ spec: { hard: unknown } }>().spec.hard).toEqual(expected);
  });

  // Answers recorded from kube-apiserver 1.34.4: validation reads a whole number as the text it decodes to.
  it.each([
    [
      'persistentvolumes',
      { capacity: { storage: -5 }, accessModes: ['ReadWriteOnce'], nfs: { server: 's', path: '/e' } },
      [
        'spec.capacity[storage]: Invalid value: -5: must be a valid resource quantity',
        'spec.capacity[storage]: Invalid value: "-5": must be greater than zero',
      ],
    ],
    [
      'persistentvolumes',
      { capacity: { storage: 0 }, accessModes: ['ReadWriteOnce'], nfs: { server: 's', path: '/e' } },
      ['spec.capacity[storage]: Invalid value: "0": must be greater than zero'],
    ],
    [
      'persistentvolumeclaims',
      { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: 0 } } },
      ['spec.resources[storage]: Invalid value: "0": must be greater than zero'],
    ],
  ])('checks a whole number given for a quantity of %s as its text', async (resource, spec, causes) => {
    const kind = resource === 'persistentvolumes' ? 'PersistentVolume' : 'PersistentVolumeClaim';
    const path = resource === 'persistentvolumes' ? '/api/v1' : '/api/v1/namespaces/default';
    const refused = await server.request('POST', `${path}/${resource}`, {
      body: JSON.stringify({ apiVersion: 'v1', kind, metadata: { generateName: 'number-' }, spec }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(refused.status).toBe(422);
    const details = refused.json<{ details: { causes: { field: string; message: string }[] } }>().details;
    expect(details.causes.map((cause) => `${cause.field}: ${cause.message}`)).toEqual(causes);
  });

  it('refuses text that is no quantity with the reference decoder error', async () => {
    const refused = await quota('bad', { 'requests.cpu': '1Kb' });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({
      reason: 'BadRequest',
      message:
        'ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    });
  });
});
