/**
 * The reference's ResourceList defaulting (SetDefaults_ResourceList): a quantity finer than a
 * milli, in a ResourceList of the core types, is stored rounded up to one, away from zero and in
 * the format it was written in. Quantities elsewhere keep their nanos. Every answer here was
 * recorded from kube-apiserver 1.34.4 (last on 2026-11-30): a Node's `status.capacity` of cpu and
 * of ephemeral-storage created with each text (fixtures/recorded-resource-list-rounding.json; a
 * negative amount is refused, with its rounded value in the message), and the objects below
 * created with `dryRun=All`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { roundedUpToMilli } from '../../../server/quantity/quantity';
import { roundResourceLists } from '../../../server/registry/defaults/resource-lists';
import { inProcessServerForSuite } from '../../helpers/in-process-server';

interface RecordedCapacity {
  readonly resource: string;
  readonly written: string;
  readonly code: number;
  /** What a Node created with it holds. */
  readonly stored?: string;
  /** Why it was refused (negative), after `Node "x" is invalid: `. */
  readonly message?: string;
}

const recorded = Object.values(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-resource-list-rounding.json'), 'utf8')) as Record<
    string,
    RecordedCapacity
  >,
);

/** The amount the reference kept, or showed in refusing it. */
const roundedAmount = ({ stored, message }: RecordedCapacity) =>
  stored ?? /Invalid value: "([^"]*)"/.exec(message!)![1];

it.each(recorded.map((c) => [c.written, roundedAmount(c)]))('%j is stored as %j', (written, rounded) => {
  expect(roundedUpToMilli(written)).toBe(rounded);
});

it.each(['500m', '-500m', '128Mi', '1.5Ki', '2', '+1', '1.', '.5', '1.123', '0.001k', '3E', '01'])(
  '%j, a whole number of millis, is kept as written',
  (written) => {
    expect(roundedUpToMilli(written)).toBe(written);
  },
);

it('walks a kind whose schema holds itself (a CRD) and leaves it as it was', () => {
  const crd = { spec: { versions: [{ schema: { openAPIV3Schema: { properties: { a: { type: 'string' } } } } }] } };
  const copy = structuredClone(crd);
  roundResourceLists(crd, 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition');
  expect(crd).toEqual(copy);
});

describe('through the API', () => {
  // No controller makes the `default` ServiceAccount the plugin would want for the pods here.
  const server = inProcessServerForSuite(['--disable-admission-plugins=ServiceAccount']);
  type Json = Record<string, any>;
  const create = async (path: string, body: Json): Promise<Json> => {
    const answer = await server.request('POST', path, {
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(answer.status).toBe(201);
    return answer.json<Json>();
  };
  const fine = { cpu: '1500u', memory: '1.0001m' };
  const rounded = { cpu: '2m', memory: '2m' };
  const container = (name: string) => ({ name, image: 'nginx', resources: { limits: fine, requests: fine } });

  it("rounds a pod's container, init container, pod-level and ephemeral volume lists", async () => {
    const pod = await create('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'rounded' },
      spec: {
        containers: [container('c')],
        initContainers: [container('i')],
        resources: { limits: fine, requests: fine },
        volumes: [
          {
            name: 'v',
            ephemeral: {
              volumeClaimTemplate: {
                spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1.0001m' } } },
              },
            },
          },
        ],
      },
    });
    const both = { limits: rounded, requests: rounded };
    expect(pod.spec.containers[0].resources).toEqual(both);
    expect(pod.spec.initContainers[0].resources).toEqual(both);
    expect(pod.spec.resources).toEqual(both);
    expect(pod.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources).toEqual({
      requests: { storage: '2m' },
    });
    const read = await server.request('GET', '/api/v1/namespaces/default/pods/rounded');
    expect(read.json<Json>().spec.containers[0].resources).toEqual(both);
  });

  it("rounds a workload's template and claim templates, a limit range's items and a node's capacity", async () => {
    const statefulSet = await create('/apis/apps/v1/namespaces/default/statefulsets', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'rounded' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container('c')] } },
        volumeClaimTemplates: [
          {
            metadata: { name: 'x' },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1500u' } } },
          },
        ],
      },
    });
    expect(statefulSet.spec.template.spec.containers[0].resources).toEqual({ limits: rounded, requests: rounded });
    expect(statefulSet.spec.volumeClaimTemplates[0].spec.resources).toEqual({ requests: { storage: '2m' } });

    const limitRange = await create('/api/v1/namespaces/default/limitranges', {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'rounded' },
      spec: {
        limits: [{ type: 'Container', max: { cpu: '2.0000001' }, default: { cpu: '0.0001n', memory: '100.5' } }],
      },
    });
    expect(limitRange.spec.limits).toEqual([
      {
        type: 'Container',
        max: { cpu: '2001m' },
        default: { cpu: '1m', memory: '100500m' },
        defaultRequest: { cpu: '1m', memory: '100500m' },
      },
    ]);

    const node = await create('/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'rounded' },
      status: { capacity: { cpu: '1.5e-10', 'ephemeral-storage': '123456789n' } },
    });
    expect(node.status.capacity).toEqual({ cpu: '1e-3', 'ephemeral-storage': '124m' });
  });

  it.each(recorded.map((c) => [`${c.resource} ${c.written}`, c]))(
    "a Node's capacity of %s is answered as recorded",
    async (_name, c) => {
      const answer = await server.request('POST', '/api/v1/nodes?dryRun=All', {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: 'capacity' },
          status: { capacity: { [c.resource]: c.written } },
        }),
        headers: { 'Content-Type': 'application/json' },
      });
      const body = answer.json<Json>();
      expect(
        answer.status >= 300
          ? { code: answer.status, message: String(body.message).split(' is invalid: ')[1] }
          : { code: answer.status, stored: body.status.capacity[c.resource] },
      ).toEqual({ code: c.code, ...(c.stored !== undefined ? { stored: c.stored } : { message: c.message }) });
    },
  );

  it('keeps the nanos of a quantity outside a ResourceList', async () => {
    const capacity = await create('/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities', {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: { name: 'kept' },
      storageClassName: 's',
      capacity: '1500u',
      maximumVolumeSize: '1n',
    });
    expect([capacity.capacity, capacity.maximumVolumeSize]).toEqual(['1500u', '1n']);
  });
});
