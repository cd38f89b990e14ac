/**
 * Dynamic resource allocation with kubectl, once through resource.k8s.io/v1beta2 and once
 * through v1, on a server started with `--runtime-config` switching the beta versions on: a
 * DeviceClass, a node's ResourceSlice, a ResourceClaimTemplate and a Pod that asks for a claim
 * from it; then the claim the resourceclaim controller would make, allocated and reserved for
 * the pod as the scheduler would write it. Every object reads back at every served version in
 * that version's shape (v1beta1's flat requests and `basic` devices), kubectl prints the claim's
 * state, and the kubelet's field selector finds the slice at each version. Without the flag only
 * v1 is served, as a default 1.34 server does.
 */
import { request as httpsRequest } from 'node:https';
import { decodeObject, encodeEnvelope } from '../../server/codec/protobuf-envelope';
import type { JsonObject } from '../../server/codec/protobuf';
import { startInProcessServer, inProcessServerForSuite } from '../helpers/in-process-server';
import type { KubectlResult } from '../helpers/server';

jest.setTimeout(120_000);

const SERVED = ['v1', 'v1beta2', 'v1beta1'] as const;
const DRIVER = 'gpu.example.com';
const NODE = 'node-1';
type Json = Record<string, any>;

const server = inProcessServerForSuite([
  '--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true',
  // No wait for the service-account controller's `default` account in each new namespace.
  '--disable-admission-plugins=ServiceAccount',
]);

function ok(result: KubectlResult): string {
  if (result.code !== 0) throw new Error(`kubectl failed: ${result.stderr}`);
  return result.stdout;
}

async function kubectl(args: string[], input?: string): Promise<string> {
  return ok(await server.kubectl(args, input === undefined ? undefined : { input }));
}

/** `kubectl get` of one object through one version of the group. */
async function getAt(version: string, resource: string, name: string, namespace?: string): Promise<Json> {
  const args = ['get', `${resource}.${version}.resource.k8s.io`, name, '-o', 'json'];
  return JSON.parse(await kubectl(namespace === undefined ? args : [...args, '-n', namespace])) as Json;
}

/** The objects a cluster admin, a driver and a user write, in `version`'s shape (v1beta2 and v1 share it). */
function userObjects(version: string, namespace: string): Json[] {
  const apiVersion = `resource.k8s.io/${version}`;
  return [
    {
      apiVersion,
      kind: 'DeviceClass',
      metadata: { name: `gpu-${version}` },
      spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] },
    },
    {
      apiVersion,
      kind: 'ResourceSlice',
      metadata: { name: `${NODE}-gpus-${version}` },
      spec: {
        driver: DRIVER,
        nodeName: NODE,
        pool: { name: `${NODE}-${version}`, generation: 1, resourceSliceCount: 1 },
        devices: [
          { name: 'gpu-0', attributes: { model: { string: 'A100' } }, capacity: { memory: { value: '40Gi' } } },
          { name: 'gpu-1', attributes: { model: { string: 'A100' } }, capacity: { memory: { value: '40Gi' } } },
        ],
      },
    },
    {
      apiVersion,
      kind: 'ResourceClaimTemplate',
      metadata: { name: 'one-gpu', namespace },
      spec: {
        spec: {
          devices: {
            requests: [
              {
                name: 'gpu',
                exactly: {
                  deviceClassName: `gpu-${version}`,
                  selectors: [{ cel: { expression: `device.attributes["${DRIVER}"].model == "A100"` } }],
                },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'trainer', namespace },
      spec: {
        containers: [{ name: 'train', image: 'registry.k8s.io/pause:3.10', resources: { claims: [{ name: 'gpu' }] } }],
        resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
      },
    },
  ];
}

function asList(objects: Json[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
}

describe.each(['v1beta2', 'v1'])('the flow through %s', (version) => {
  const namespace = `flow-${version}`;
  const claimName = 'trainer-gpu-x7k2p';

  beforeAll(async () => {
    await kubectl(['create', 'namespace', namespace]);
    await kubectl(['apply', '-f', '-'], asList(userObjects(version, namespace)));
  });

  test('the resourceclaim controller’s claim, allocated and reserved as the scheduler writes it', async () => {
    const pod = JSON.parse(await kubectl(['get', 'pod', 'trainer', '-n', namespace, '-o', 'json'])) as Json;
    const template = await getAt(version, 'resourceclaimtemplates', 'one-gpu', namespace);
    const claim = {
      apiVersion: `resource.k8s.io/${version}`,
      kind: 'ResourceClaim',
      metadata: {
        name: claimName,
        namespace,
        annotations: { 'resource.kubernetes.io/pod-claim-name': 'gpu' },
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: 'trainer',
            uid: pod.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: template.spec.spec,
    };
    await kubectl(['create', '-f', '-'], JSON.stringify(claim));
    const status = {
      status: {
        allocation: {
          devices: { results: [{ request: 'gpu', driver: DRIVER, pool: `${NODE}-${version}`, device: 'gpu-1' }] },
          nodeSelector: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [NODE] }] }],
          },
        },
        reservedFor: [{ resource: 'pods', name: 'trainer', uid: pod.metadata.uid }],
      },
    };
    await kubectl([
      'patch',
      `resourceclaims.${version}.resource.k8s.io`,
      claimName,
      '-n',
      namespace,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(status),
    ]);
    const podStatus = { status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: claimName }] } };
    await kubectl([
      'patch',
      'pod',
      'trainer',
      '-n',
      namespace,
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify(podStatus),
    ]);

    const table = await kubectl(['get', `resourceclaims.${version}.resource.k8s.io`, '-n', namespace]);
    expect(table.split('\n')[1]).toMatch(new RegExp(`^${claimName}\\s+allocated,reserved\\s+\\d+s$`));
    const reread = JSON.parse(await kubectl(['get', 'pod', 'trainer', '-n', namespace, '-o', 'json'])) as Json;
    expect(reread.status.resourceClaimStatuses).toEqual([{ name: 'gpu', resourceClaimName: claimName }]);
  });

  test.each(SERVED)('every object reads back through %s in its shape', async (readAt) => {
    const apiVersion = `resource.k8s.io/${readAt}`;
    const flat = readAt === 'v1beta1';

    const deviceClass = await getAt(readAt, 'deviceclasses', `gpu-${version}`);
    expect(deviceClass).toMatchObject({ apiVersion, kind: 'DeviceClass', metadata: { generation: 1 } });
    expect(deviceClass.spec).toEqual({ selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] });

    const slice = await getAt(readAt, 'resourceslices', `${NODE}-gpus-${version}`);
    const properties = { attributes: { model: { string: 'A100' } }, capacity: { memory: { value: '40Gi' } } };
    expect(slice).toMatchObject({ apiVersion, kind: 'ResourceSlice', spec: { driver: DRIVER, nodeName: NODE } });
    expect(slice.spec.devices).toEqual(
      ['gpu-0', 'gpu-1'].map((name) => (flat ? { name, basic: properties } : { name, ...properties })),
    );

    const selector = { cel: { expression: `device.attributes["${DRIVER}"].model == "A100"` } };
    const request = {
      deviceClassName: `gpu-${version}`,
      selectors: [selector],
      allocationMode: 'ExactCount',
      count: 1,
    };
    const requests = [flat ? { name: 'gpu', ...request } : { name: 'gpu', exactly: request }];
    const template = await getAt(readAt, 'resourceclaimtemplates', 'one-gpu', namespace);
    expect(template).toMatchObject({ apiVersion, kind: 'ResourceClaimTemplate' });
    expect(template.spec).toEqual({ metadata: {}, spec: { devices: { requests } } });

    const claim = await getAt(readAt, 'resourceclaims', claimName, namespace);
    expect(claim).toMatchObject({ apiVersion, kind: 'ResourceClaim' });
    expect(claim.spec).toEqual({ devices: { requests } });
    expect(claim.status.allocation.devices.results).toEqual([
      { request: 'gpu', driver: DRIVER, pool: `${NODE}-${version}`, device: 'gpu-1' },
    ]);
    expect(claim.status.reservedFor).toEqual([expect.objectContaining({ resource: 'pods', name: 'trainer' })]);
  });

  test.each(SERVED)('the kubelet’s field selector finds the node’s slice through %s', async (readAt) => {
    const names = await kubectl([
      'get',
      `resourceslices.${readAt}.resource.k8s.io`,
      `--field-selector=spec.nodeName=${NODE},spec.driver=${DRIVER}`,
      '-o',
      'name',
    ]);
    expect(names.split('\n').filter(Boolean)).toContain(`resourceslice.resource.k8s.io/${NODE}-gpus-${version}`);
  });
});

test('a write through v1beta1 is the same claim at v1', async () => {
  const namespace = 'flow-v1beta1';
  await kubectl(['create', 'namespace', namespace]);
  const claim = {
    apiVersion: 'resource.k8s.io/v1beta1',
    kind: 'ResourceClaim',
    metadata: { name: 'flat', namespace },
    spec: {
      devices: {
        requests: [
          { name: 'gpu', deviceClassName: 'gpu-v1' },
          { name: 'either', firstAvailable: [{ name: 'a', deviceClassName: 'gpu-v1' }] },
        ],
      },
    },
  };
  await kubectl(['create', '-f', '-'], JSON.stringify(claim));
  const v1 = JSON.parse(
    await kubectl([
      'get',
      'resourceclaims.v1.resource.k8s.io',
      'flat',
      '-n',
      namespace,
      '-o',
      'json',
      '--show-managed-fields',
    ]),
  ) as Json;
  expect(v1.spec.devices.requests).toEqual([
    { name: 'gpu', exactly: { deviceClassName: 'gpu-v1', allocationMode: 'ExactCount', count: 1 } },
    {
      name: 'either',
      firstAvailable: [{ name: 'a', deviceClassName: 'gpu-v1', allocationMode: 'ExactCount', count: 1 }],
    },
  ]);
  const managers = (v1.metadata.managedFields as Json[]).map((entry) => entry.apiVersion);
  expect(managers).toEqual(['resource.k8s.io/v1beta1']);
});

test('server-side apply through v1beta1 owns the flat fields it sent, and a second apply changes them', async () => {
  const slice = (model: string) => ({
    apiVersion: 'resource.k8s.io/v1beta1',
    kind: 'ResourceSlice',
    metadata: { name: 'applied' },
    spec: {
      driver: DRIVER,
      allNodes: true,
      pool: { name: 'applied', generation: 1, resourceSliceCount: 1 },
      devices: [{ name: 'gpu-0', basic: { attributes: { model: { string: model } } } }],
    },
  });
  for (const model of ['A100', 'H100'])
    await kubectl(['apply', '--server-side', '--field-manager=driver', '-f', '-'], JSON.stringify(slice(model)));
  const v1 = await getAt('v1', 'resourceslices', 'applied');
  expect(v1.spec.devices).toEqual([{ name: 'gpu-0', attributes: { model: { string: 'H100' } } }]);
  expect(v1.metadata.generation).toBe(2);
});

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** A request whose answer is kept as bytes (the helpers' answers are text). */
function binaryCall(method: string, path: string, body?: Buffer): Promise<{ status: number; body: Buffer }> {
  const { ca, cert, key } = server.credentials;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: PROTOBUF };
    if (body !== undefined) Object.assign(headers, { 'content-type': PROTOBUF, 'content-length': String(body.length) });
    const req = httpsRequest(new URL(path, server.url), { method, ca, cert, key, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('protobuf through v1beta1, as a client-go DRA driver of 1.32 speaks it', async () => {
  const slice = {
    apiVersion: 'resource.k8s.io/v1beta1',
    kind: 'ResourceSlice',
    metadata: { name: 'protobuf-slice' },
    spec: {
      driver: DRIVER,
      nodeName: 'node-2',
      pool: { name: 'node-2', generation: 1, resourceSliceCount: 1 },
      devices: [{ name: 'gpu-0', basic: { attributes: { model: { string: 'A100' } } } }],
    },
  };
  const created = await binaryCall('POST', '/apis/resource.k8s.io/v1beta1/resourceslices', encodeEnvelope(slice));
  expect(created.status).toBe(201);
  expect((decodeObject(created.body) as JsonObject).spec).toEqual(slice.spec);
  const read = await binaryCall('GET', '/apis/resource.k8s.io/v1beta1/resourceslices/protobuf-slice');
  const json = await server.request('GET', '/apis/resource.k8s.io/v1beta1/resourceslices/protobuf-slice');
  expect(decodeObject(read.body)).toEqual(json.json());
  expect((await getAt('v1', 'resourceslices', 'protobuf-slice')).spec.devices).toEqual([
    { name: 'gpu-0', attributes: { model: { string: 'A100' } } },
  ]);
});

test('a watch through v1beta1 sends its events in v1beta1’s shape', async () => {
  const answer = await server.request(
    'GET',
    `/apis/resource.k8s.io/v1beta1/resourceslices?watch=1&timeoutSeconds=1&fieldSelector=spec.nodeName%3D${NODE}`,
  );
  const events = answer.body
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; object: Json });
  expect(events.length).toBeGreaterThanOrEqual(2);
  for (const { type, object } of events) {
    expect(type).toBe('ADDED');
    expect(object.apiVersion).toBe('resource.k8s.io/v1beta1');
    expect(object.spec.devices.every((device: Json) => device.basic !== undefined)).toBe(true);
  }
});

test('without --runtime-config only v1 is served, as a default 1.34 server', async () => {
  const plain = await startInProcessServer();
  try {
    const group = (await plain.request('GET', '/apis/resource.k8s.io')).json<Json>();
    expect(group.versions.map((v: Json) => v.version)).toEqual(['v1']);
    expect((await plain.request('GET', '/apis/resource.k8s.io/v1beta2/resourceclaims')).status).toBe(404);
    const served = (await server.request('GET', '/apis/resource.k8s.io')).json<Json>();
    expect(served.versions.map((v: Json) => v.version)).toEqual(['v1', 'v1beta2', 'v1beta1']);
    expect(served.preferredVersion.version).toBe('v1');
  } finally {
    await plain.stop();
  }
});
