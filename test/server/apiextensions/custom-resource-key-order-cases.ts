/**
 * The requests whose answers show the key order of a custom resource's JSON: objects written
 * with their keys in an order other than the sorted one (reversed, numeric strings, characters
 * outside the BMP against ones just below it), then read back through every way a server
 * answers with the object. kube-apiserver 1.34 holds custom resources as unstructured maps, and
 * Go writes a map's keys sorted by their bytes. Recorded against the reference into
 * fixtures/custom-resource-key-order.json and replayed against capstan by
 * custom-resource-key-order.test.ts.
 */
import type { HttpResult } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

export type Call = (
  method: string,
  path: string,
  options?: { body?: string; headers?: Record<string, string> },
) => Promise<HttpResult>;

/** The raw value a server stored under a key (etcd or SQLite), as text. */
export type ReadStored = (key: string) => Promise<string | undefined>;

export interface RecordedAnswer {
  readonly name: string;
  readonly status: number;
  /** The body with uids, times and resource versions replaced by placeholders, byte for byte otherwise. */
  readonly body: string;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/key-order.example.com/v1/namespaces/default/widgets';

const preserved = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** Written as JSON text so that the key order is exactly the one sent. */
const CRD = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.key-order.example.com' },
  spec: {
    group: 'key-order.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
        },
        additionalPrinterColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                ...preserved,
                properties: {
                  replicas: { type: 'integer' },
                  choice: { ...preserved, enum: [{ one: 1 }] },
                },
              },
              status: { ...preserved, properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
});

/**
 * Keys in an order Go would not write: reversed, capitals, characters whose UTF-16 order is not
 * their UTF-8 order, and keys that are array indices ("9" and "10", which a JavaScript object
 * enumerates first, in numeric order).
 */
const firstWidget = (ownerUid: string): string => `{
  "status": {"z": 1, "a": 2},
  "spec": {
    "zeta": {"y": [{"q": 1, "b": {"d": 1, "c": 2}, "a": 2}], "b10": "ten", "b9": "nine", "B": true, "9": 9, "10": 10, "-": "dash"},
    "\u{1F600}": "astral", "\uFF21": "fullwidth", "replicas": 1,
    "list": [{"name": "x", "image": "y", "env": [{"value": "1", "name": "A"}]}],
    "empty": {}, "nothing": null
  },
  "metadata": {
    "ownerReferences": [{"uid": "${ownerUid}", "name": "owner", "kind": "ConfigMap", "apiVersion": "v1", "controller": true}],
    "annotations": {"zz": "1", "a10": "a", "a9": "b", "a.example.com/x": "c"},
    "labels": {"z": "1", "a": "2", "A": "3", "a-b": "4"},
    "finalizers": ["example.com/b", "example.com/a"],
    "name": "w1"
  },
  "kind": "Widget",
  "apiVersion": "key-order.example.com/v1"
}`;

const W2_APPLY = `{
  "spec": {"zeta": {"y": 1, "b10": 2, "b9": 3, "9": 4, "10": 5}, "replicas": 2, "map": {"b": {"d": 1, "c": 1}, "a": 1}},
  "metadata": {"labels": {"z": "1", "a": "2"}, "name": "w2"},
  "kind": "Widget",
  "apiVersion": "key-order.example.com/v1"
}`;

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

/** Random and clock-bound values replaced by placeholders, the rest of the bytes kept. */
/**
 * Waits until a second has just begun. Servers order managedFields entries by their time in whole
 * seconds before their subresource, so the status write and the merge patch after it must land
 * in one second, as they did when recorded, for w1's entries to come out in the recorded order.
 */
async function startOfASecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000)));
}

export function normalized(body: string): string {
  return body
    .replace(/"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"/g, '"<uid>"')
    .replace(/\\"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\"/g, '\\"<uid>\\"')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"/g, '"<time>"')
    .replace(/"resourceVersion":"\d+"/g, '"resourceVersion":"<rv>"')
    .replace(/\\"resourceVersion\\":\\"\d+\\"/g, '\\"resourceVersion\\":\\"<rv>\\"');
}

/** Runs the requests against one server and returns the answers in order. */
export async function keyOrderAnswers(call: Call, readStored: ReadStored): Promise<RecordedAnswer[]> {
  const answers: RecordedAnswer[] = [];
  const record = async (name: string, answer: Promise<HttpResult>): Promise<HttpResult> => {
    const result = await answer;
    answers.push({ name, status: result.status, body: normalized(result.body) });
    return result;
  };
  const crd = await call('POST', CRD_PATH, { body: CRD, headers: JSON_HEADERS });
  if (crd.status !== 201) throw new Error(`CRD create: ${crd.status} ${crd.body}`);
  await waitUntil('widgets served', async () => (await call('GET', WIDGETS)).status === 200);

  // The owner exists, so that a garbage collector leaves its dependent alone.
  const owner = await call('POST', '/api/v1/namespaces/default/configmaps', {
    body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"owner"}}',
    headers: JSON_HEADERS,
  });
  if (owner.status !== 201) throw new Error(`owner create: ${owner.status} ${owner.body}`);
  const W1 = firstWidget(owner.json<{ metadata: { uid: string } }>().metadata.uid);
  const created = await record('create', call('POST', WIDGETS, { body: W1, headers: JSON_HEADERS }));
  const w1 = created.json<{ metadata: { resourceVersion: string } }>();
  await record('get', call('GET', `${WIDGETS}/w1`));
  await record('table', call('GET', `${WIDGETS}/w1`, { headers: { accept: TABLE } }));
  await startOfASecond();
  await record(
    'status',
    call('PATCH', `${WIDGETS}/w1/status`, {
      body: '{"status":{"replicas":1,"b":{"y":2,"x":1}}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    }),
  );
  await record('get scale', call('GET', `${WIDGETS}/w1/scale`));
  await record(
    'update scale',
    call('PUT', `${WIDGETS}/w1/scale`, {
      body: '{"spec":{"replicas":3},"metadata":{"name":"w1","namespace":"default"},"kind":"Scale","apiVersion":"autoscaling/v1"}',
      headers: JSON_HEADERS,
    }),
  );
  await record(
    'merge patch',
    call('PATCH', `${WIDGETS}/w1`, {
      body: '{"spec":{"zeta":{"new":{"z":1,"a":1}}}}',
      headers: { 'content-type': 'application/merge-patch+json' },
    }),
  );
  await record(
    'stale update',
    call('PUT', `${WIDGETS}/w1`, {
      body: W1.replace('"name": "w1"', `"name": "w1", "resourceVersion": "${w1.metadata.resourceVersion}"`),
      headers: JSON_HEADERS,
    }),
  );
  await record(
    'object quoted in an invalid value',
    call('POST', WIDGETS, {
      body: '{"apiVersion":"key-order.example.com/v1","kind":"Widget","metadata":{"name":"w3"},"spec":{"choice":{"z":{"b":1,"a":2},"a":[{"y":1,"x":2}],"\u{1F600}":1,"\uFF21":2,"9":3,"10":4}}}',
      headers: JSON_HEADERS,
    }),
  );
  await record(
    'apply',
    call('PATCH', `${WIDGETS}/w2?fieldManager=key-order`, {
      body: W2_APPLY,
      headers: { 'content-type': 'application/apply-patch+yaml' },
    }),
  );
  await record(
    'dry-run create',
    call('POST', `${WIDGETS}?dryRun=All`, { body: W1.replace('"name": "w1"', '"name": "w4"'), headers: JSON_HEADERS }),
  );
  await record(
    'dry-run apply create',
    call('PATCH', `${WIDGETS}/w5?fieldManager=key-order&dryRun=All`, {
      body: W2_APPLY.replace('"name": "w2"', '"name": "w5"'),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    }),
  );
  await record('list', call('GET', WIDGETS));
  await record('watch', call('GET', `${WIDGETS}?watch=1&resourceVersion=0&timeoutSeconds=1`));
  for (const name of ['w1', 'w2']) {
    const stored = await readStored(`/registry/key-order.example.com/widgets/default/${name}`);
    answers.push({ name: `stored ${name}`, status: stored === undefined ? 404 : 200, body: normalized(stored ?? '') });
  }
  return answers;
}
