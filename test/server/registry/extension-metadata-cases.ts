/**
 * Updates with a bad label value and a bad annotation key of the kinds the update corpus
 * (test/corpus/update-cases.ts) leaves out: a CustomResourceDefinition, an APIService and a
 * custom resource of the CRD, each through the object and its status (and the custom resource's
 * Scale). The same requests go to the reference (to record fixtures/extension-metadata-update.json)
 * and to capstan (extension-metadata-update.test.ts).
 */
import type { HttpResult } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

type Request = (
  method: string,
  path: string,
  options?: { body?: string; headers?: Record<string, string> },
) => Promise<HttpResult>;

const JSON_TYPE = { 'content-type': 'application/json' };
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const API_SERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

/** What the cases update, made in this order (the custom resource once its CRD serves). */
export const OBJECTS: readonly { readonly collection: string; readonly object: Record<string, unknown> }[] = [
  {
    collection: CRDS,
    object: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            subresources: {
              status: {},
              scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
            },
          },
        ],
      },
    },
  },
  {
    collection: API_SERVICES,
    object: {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.example.org' },
      spec: {
        group: 'example.org',
        version: 'v1',
        groupPriorityMinimum: 100,
        versionPriority: 10,
        insecureSkipTLSVerify: true,
        service: { namespace: 'default', name: 'svc' },
      },
    },
  },
  {
    collection: WIDGETS,
    object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1 } },
  },
];

/** Each case's name is the path it reads and writes. */
export const CASE_PATHS: readonly string[] = [
  `${CRDS}/widgets.example.com`,
  `${CRDS}/widgets.example.com/status`,
  `${API_SERVICES}/v1.example.org`,
  `${API_SERVICES}/v1.example.org/status`,
  `${WIDGETS}/w`,
  `${WIDGETS}/w/status`,
  `${WIDGETS}/w/scale`,
];

export interface Answer {
  readonly code: number;
  /** `<field>: <message>` of each cause. */
  readonly causes: readonly string[];
}

/** Makes the objects, each once its kind is served (the custom resource's once its CRD is). */
export async function makeObjects(request: Request): Promise<void> {
  for (const { collection, object } of OBJECTS) {
    const body = JSON.stringify(object);
    await waitUntil(
      `a ${String(object.kind)} made`,
      async () => (await request('POST', collection, { body, headers: JSON_TYPE })).status === 201,
    );
  }
}

/** Reads what is at `path` and PUTs it back with a bad label value and a bad annotation key. */
export async function badMetadataAnswer(request: Request, path: string): Promise<Answer> {
  const current = await request('GET', path);
  if (current.status !== 200) throw new Error(`GET ${path}: ${current.status} ${current.body.slice(0, 300)}`);
  const object = current.json<{
    metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
  }>();
  object.metadata.labels = { ...object.metadata.labels, bad: '-bad-' };
  object.metadata.annotations = { ...object.metadata.annotations, 'bad key!': 'v' };
  const answer = await request('PUT', path, { body: JSON.stringify(object), headers: JSON_TYPE });
  const status = answer.json<{ kind?: string; details?: { causes?: { field?: string; message?: string }[] } }>();
  const causes = status.kind === 'Status' ? (status.details?.causes ?? []) : [];
  return { code: answer.status, causes: causes.map((cause) => `${cause.field}: ${cause.message}`) };
}
