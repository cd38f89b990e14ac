/**
 * The requests whose answers show the order of labels and annotations whose keys are array
 * indices ("9", "10"), which a JavaScript object enumerates first, in numeric order, while Go
 * writes a map's keys sorted by their bytes ("10", "9", "a"). A ConfigMap (stored in protobuf)
 * and a custom resource (stored as JSON) with such keys are created, patched and read back in
 * each form an answer takes: compact and pretty JSON, YAML, PartialObjectMetadata and its list,
 * and a Table. Recorded against kube-apiserver 1.34.4 into fixtures/index-key-order.json and
 * replayed against capstan by index-key-order.test.ts.
 */
import type { HttpResult } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

export type Call = (
  method: string,
  path: string,
  options?: { body?: string; headers?: Record<string, string> },
) => Promise<HttpResult>;

export interface RecordedAnswer {
  readonly name: string;
  readonly status: number;
  readonly contentType: string;
  /** The body with uids, times and resource versions replaced by placeholders, byte for byte otherwise. */
  readonly body: string;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const GADGETS = '/apis/index-keys.example.com/v1/namespaces/default/gadgets';

const CRD = JSON.stringify({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.index-keys.example.com' },
  spec: {
    group: 'index-keys.example.com',
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
});

/** Written as JSON text so that the keys go in the order sent, not the order JavaScript enumerates. */
const INDEX_KEYED = '{"a": "c", "9": "b", "10": "a"}';

const CONFIGMAP = `{"apiVersion": "v1", "kind": "ConfigMap",
  "metadata": {"name": "indexed", "labels": ${INDEX_KEYED}, "annotations": ${INDEX_KEYED}},
  "data": {"k": "v"}}`;

const GADGET = `{"apiVersion": "index-keys.example.com/v1", "kind": "Gadget",
  "metadata": {"name": "indexed", "labels": ${INDEX_KEYED}, "annotations": ${INDEX_KEYED}},
  "spec": {"k": "v"}}`;

const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

/** The forms an object's answer is read in: a name and the request's path suffix and headers. */
const READS: readonly { name: string; query?: string; headers: Record<string, string> }[] = [
  { name: 'json', headers: { accept: 'application/json' } },
  { name: 'json ?pretty=true', query: '?pretty=true', headers: { accept: 'application/json' } },
  { name: 'json to curl', headers: { accept: 'application/json', 'user-agent': 'curl/8.5.0' } },
  { name: 'yaml', headers: { accept: 'application/yaml' } },
  { name: 'metadata', headers: { accept: METADATA } },
  { name: 'metadata ?pretty=true', query: '?pretty=true', headers: { accept: METADATA } },
  { name: 'metadata yaml', headers: { accept: 'application/yaml;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' } },
  { name: 'table', headers: { accept: TABLE } },
];

/** Lists select the object alone (a server's controllers may have written others beside it). */
const SELECTED = '?labelSelector=a%3Dc';

const LIST_READS: readonly { name: string; query: string; headers: Record<string, string> }[] = [
  { name: 'list json', query: SELECTED, headers: { accept: 'application/json' } },
  { name: 'list json pretty', query: `${SELECTED}&pretty=true`, headers: { accept: 'application/json' } },
  { name: 'list yaml', query: SELECTED, headers: { accept: 'application/yaml' } },
  { name: 'list metadata', query: SELECTED, headers: { accept: METADATA_LIST } },
  { name: 'list metadata pretty', query: `${SELECTED}&pretty=true`, headers: { accept: METADATA_LIST } },
  { name: 'list table', query: SELECTED, headers: { accept: TABLE } },
  { name: 'list table pretty', query: `${SELECTED}&pretty=true`, headers: { accept: TABLE } },
];

/** Random and clock-bound values (a table row's age too) replaced by placeholders, the rest of the bytes kept. */
export function normalized(body: string): string {
  return body
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uid>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')
    .replace(/(resourceVersion"?: ?"?)\d+/g, '$1<rv>')
    .replace(/"\d+s"(?=\s*\])/g, '"<age>"');
}

/** Creates the two objects on one server, then reads them in each form; the answers in order. */
export async function indexKeyOrderAnswers(call: Call): Promise<RecordedAnswer[]> {
  const crd = await call('POST', CRD_PATH, { body: CRD, headers: { 'content-type': 'application/json' } });
  if (crd.status !== 201) throw new Error(`CRD create: ${crd.status} ${crd.body}`);
  await waitUntil('gadgets served', async () => (await call('GET', GADGETS)).status === 200);

  const answers: RecordedAnswer[] = [];
  const record = async (name: string, answer: Promise<HttpResult>): Promise<void> => {
    const result = await answer;
    const contentType = result.headers['content-type'];
    answers.push({
      name,
      status: result.status,
      contentType: typeof contentType === 'string' ? contentType : '',
      body: normalized(result.body),
    });
  };
  for (const [kind, collection, object] of [
    ['configmap', CONFIGMAPS, CONFIGMAP],
    ['custom resource', GADGETS, GADGET],
  ] as const) {
    await record(
      `${kind} create`,
      call('POST', collection, { body: object, headers: { 'content-type': 'application/json' } }),
    );
    await record(
      `${kind} merge patch`,
      call('PATCH', `${collection}/indexed`, {
        body: '{"metadata": {"labels": {"b": "d", "11": "e"}}}',
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
    );
    for (const read of READS)
      await record(`${kind} ${read.name}`, call('GET', `${collection}/indexed${read.query ?? ''}`, read));
    for (const read of LIST_READS)
      await record(`${kind} ${read.name}`, call('GET', `${collection}${read.query}`, read));
  }
  return answers;
}
