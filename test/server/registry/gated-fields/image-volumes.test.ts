/**
 * Image volumes (`volumes[*].image`) by the ImageVolume gate, against what kube-apiserver 1.34.4
 * answered (fixtures/image-volumes.json): Pods and PodTemplates created with the gate on, then
 * the server restarted on the same store with its default (off), new ones created and the ones
 * stored before updated. With the gate on a volume's pullPolicy defaults from its reference as
 * a container's does (Always for `latest` or neither tag nor digest, IfNotPresent otherwise and
 * for a reference the parser refuses), a Pod's volume needs a reference, and the policy is
 * checked. With it off new image volumes go with their mounts, unless the stored spec already
 * had one: then they stay, undefaulted.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInProcessServer, type InProcessServer } from '../../../helpers/in-process-server';

type Json = Record<string, any>;

interface Answer {
  readonly code: number;
  readonly causes?: readonly string[];
  readonly volumes?: Json[] | null;
  readonly volumeMounts?: Json[] | null;
}

interface Recorded {
  readonly on: Record<string, { volumes: Json[]; pod: Answer; podTemplate: Answer }>;
  readonly off: Record<string, { volumes: Json[]; pod: Answer; podTemplate: Answer }>;
  readonly updatesWithGateOff: Record<
    string,
    { resource: string; name: string; storedWithGateOn: boolean; stored: Json[]; patch: Json; answer: Answer }
  >;
}

const recorded: Recorded = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'image-volumes.json'), 'utf8'));

const NAMESPACE = '/api/v1/namespaces/default';
const JSON_BODY = { 'content-type': 'application/json' };
// No controllers, so no default ServiceAccount for a pod to be admitted with.
const FLAGS = ['--controllers=', '--disable-admission-plugins=ServiceAccount'];
const dataDir = mkdtempSync(join(tmpdir(), 'image-volumes-'));
let server: InProcessServer;

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const container = (mounts: string[]) => ({
  name: 'c',
  image: 'busybox:1',
  volumeMounts: mounts.map((name) => ({ name, mountPath: `/${name}` })),
});

function podOf(name: string, volumes: Json[]): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { volumes, containers: [container(volumes.map((volume) => volume.name))] },
  };
}

function templateOf(name: string, volumes: Json[]): Json {
  return { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name }, template: { spec: podOf(name, volumes).spec } };
}

const specOf = { pods: (object: Json) => object.spec, podtemplates: (object: Json) => object.template.spec };

async function create(resource: 'pods' | 'podtemplates', object: Json) {
  return server.request('POST', `${NAMESPACE}/${resource}`, {
    headers: JSON_BODY,
    body: JSON.stringify(object),
  });
}

function expectAnswer(answer: { status: number; json<T>(): T }, expected: Answer, spec: (object: Json) => Json): void {
  const body = answer.json<Json>();
  expect(answer.status).toBe(expected.code);
  if (expected.code >= 300) {
    expect((body.details?.causes ?? []).map((cause: Json) => `${cause.field}: ${cause.message}`)).toEqual(
      expected.causes,
    );
    return;
  }
  expect(spec(body).volumes ?? null).toEqual(expected.volumes);
  expect(spec(body).containers[0].volumeMounts ?? null).toEqual(expected.volumeMounts);
}

/** Each create case as a Pod and as a PodTemplate, named apart by `prefix`. */
function creates(cases: Recorded['on'], prefix: string): void {
  test.each(Object.entries(cases).map(([name, entry], i) => [name, i, entry] as const))(
    '%s',
    async (_, i, { volumes, pod, podTemplate }) => {
      expectAnswer(await create('pods', podOf(`${prefix}${i}`, volumes)), pod, specOf.pods);
      expectAnswer(
        await create('podtemplates', templateOf(`${prefix}${i}`, volumes)),
        podTemplate,
        specOf.podtemplates,
      );
    },
  );
}

/** The objects the updates start from that were stored with the gate on, each once. */
const storedBeforeRestart = [
  ...new Map(
    Object.values(recorded.updatesWithGateOff)
      .filter((update) => update.storedWithGateOn)
      .map((update) => [`${update.resource}/${update.name}`, update]),
  ).values(),
];

describe('ImageVolume on', () => {
  beforeAll(async () => {
    server = await startInProcessServer([...FLAGS, '--data-dir', dataDir, '--feature-gates=ImageVolume=true']);
    for (const { resource, name, stored } of storedBeforeRestart) {
      const object = resource === 'pods' ? podOf(name, stored) : templateOf(name, stored);
      expect((await create(resource as 'pods' | 'podtemplates', object)).status).toBe(201);
    }
  }, 60_000);
  afterAll(() => server.stop());

  creates(recorded.on, 'on');
});

describe('ImageVolume at its default, on the same store', () => {
  beforeAll(async () => {
    server = await startInProcessServer([...FLAGS, '--data-dir', dataDir]);
  }, 60_000);
  afterAll(() => server.stop());

  creates(recorded.off, 'off');

  test.each(Object.entries(recorded.updatesWithGateOff))('%s', async (_, update) => {
    const { resource, name, storedWithGateOn, stored, patch, answer } = update;
    if (!storedWithGateOn) expect((await create('podtemplates', templateOf(name, stored))).status).toBe(201);
    const patched = await server.request('PATCH', `${NAMESPACE}/${resource}/${name}`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify(patch),
    });
    expectAnswer(patched, answer, specOf[resource as 'pods' | 'podtemplates']);
  });
});
