/**
 * Updates with a bad label value and a bad annotation key of the kinds the update corpus
 * (test/corpus/update-cases.ts) leaves out, each through the object and the subresources it has:
 * a CustomResourceDefinition, an APIService and a custom resource of the CRD (its Scale too), on a
 * server as it starts; and the kinds served only with every alpha and beta API on. The same
 * requests went to the reference (fixtures/outside-corpus-metadata-update.json, recorded with a
 * temporary recorder) and go to capstan (outside-corpus-metadata-update.test.ts).
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

/** Objects to update, made in order, and the paths (each a case's name) read and written. */
export interface CaseSet {
  /** The flags both servers ran with, beyond those every test server has. */
  readonly flags: readonly string[];
  readonly objects: readonly { readonly collection: string; readonly object: Record<string, unknown> }[];
  readonly paths: readonly string[];
}

const CTBS = '/apis/certificates.k8s.io/v1beta1/clustertrustbundles';
const LEASE_CANDIDATES = '/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates';
const MUTATING_POLICIES = '/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicies';
const MUTATING_BINDINGS = '/apis/admissionregistration.k8s.io/v1beta1/mutatingadmissionpolicybindings';
const MIGRATIONS = '/apis/storagemigration.k8s.io/v1alpha1/storageversionmigrations';
const TAINT_RULES = '/apis/resource.k8s.io/v1alpha3/devicetaintrules';
const STORAGE_VERSIONS = '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions';
/** A self-signed CA certificate (openssl, P-256) for the ClusterTrustBundle's bundle. */
const CA_PEM =
  '-----BEGIN CERTIFICATE-----\nMIIBgDCCASWgAwIBAgIULb5zTapDfu0tlgzDPNzmkZo0LWYwCgYIKoZIzj0EAwIw\nFTETMBEGA1UEAwwKbWV0YXJlcC1jYTAeFw0yNjExMzAwNzUzMjVaFw0zNjExMjcw\nNzUzMjVaMBUxEzARBgNVBAMMCm1ldGFyZXAtY2EwWTATBgcqhkjOPQIBBggqhkjO\nPQMBBwNCAATVbEboCBriwd1jQVDNXpzaJrltLkiRAQU4NotOVbp8Iu3pVvDPHf5D\nM1Ownp7kDqNP8AzJ+UNLewjTww8PtCqzo1MwUTAdBgNVHQ4EFgQU+AOs3y947Wh7\n2gf/BTU5+F0/tzwwHwYDVR0jBBgwFoAU+AOs3y947Wh72gf/BTU5+F0/tzwwDwYD\nVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEAjiQ67Yzq/OTs8CZnh/mk\n+H7dpHFRKGmoaQekdywASjECIQCWi0FQuEUm3UKx2vk4zzgxb8r9ZmnXVH/FdR1l\nohZGkg==\n-----END CERTIFICATE-----\n';

export const CASE_SETS: Readonly<Record<'extensions' | 'gatedKinds', CaseSet>> = {
  extensions: {
    flags: [],
    objects: [
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
    ],
    paths: [
      `${CRDS}/widgets.example.com`,
      `${CRDS}/widgets.example.com/status`,
      `${API_SERVICES}/v1.example.org`,
      `${API_SERVICES}/v1.example.org/status`,
      `${WIDGETS}/w`,
      `${WIDGETS}/w/status`,
      `${WIDGETS}/w/scale`,
    ],
  },
  gatedKinds: {
    flags: ['--runtime-config=api/all=true', '--feature-gates=AllAlpha=true,AllBeta=true'],
    objects: [
      {
        collection: CTBS,
        object: {
          apiVersion: 'certificates.k8s.io/v1beta1',
          kind: 'ClusterTrustBundle',
          metadata: { name: 'ctb' },
          spec: { trustBundle: CA_PEM },
        },
      },
      {
        collection: LEASE_CANDIDATES,
        object: {
          apiVersion: 'coordination.k8s.io/v1beta1',
          kind: 'LeaseCandidate',
          metadata: { name: 'lc' },
          spec: {
            leaseName: 'l',
            binaryVersion: '1.34.0',
            emulationVersion: '1.34.0',
            strategy: 'OldestEmulationVersion',
          },
        },
      },
      {
        collection: MUTATING_POLICIES,
        object: {
          apiVersion: 'admissionregistration.k8s.io/v1beta1',
          kind: 'MutatingAdmissionPolicy',
          metadata: { name: 'map' },
          spec: {
            matchConstraints: {
              resourceRules: [
                { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
              ],
            },
            mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{}' } }],
            reinvocationPolicy: 'Never',
            failurePolicy: 'Fail',
          },
        },
      },
      {
        collection: MUTATING_BINDINGS,
        object: {
          apiVersion: 'admissionregistration.k8s.io/v1beta1',
          kind: 'MutatingAdmissionPolicyBinding',
          metadata: { name: 'mapb' },
          spec: { policyName: 'map' },
        },
      },
      {
        collection: MIGRATIONS,
        object: {
          apiVersion: 'storagemigration.k8s.io/v1alpha1',
          kind: 'StorageVersionMigration',
          metadata: { name: 'svm' },
          spec: { resource: { group: '', version: 'v1', resource: 'configmaps' } },
        },
      },
      {
        collection: TAINT_RULES,
        object: {
          apiVersion: 'resource.k8s.io/v1alpha3',
          kind: 'DeviceTaintRule',
          metadata: { name: 'dtr' },
          spec: { deviceSelector: { driver: 'a.b' }, taint: { key: 'k', effect: 'NoSchedule' } },
        },
      },
      {
        collection: STORAGE_VERSIONS,
        object: {
          apiVersion: 'internal.apiserver.k8s.io/v1alpha1',
          kind: 'StorageVersion',
          metadata: { name: 'core.widgets' },
          spec: {},
        },
      },
    ],
    paths: [
      `${CTBS}/ctb`,
      `${LEASE_CANDIDATES}/lc`,
      `${MUTATING_POLICIES}/map`,
      `${MUTATING_BINDINGS}/mapb`,
      `${MIGRATIONS}/svm`,
      `${MIGRATIONS}/svm/status`,
      `${TAINT_RULES}/dtr`,
      `${STORAGE_VERSIONS}/core.widgets`,
      `${STORAGE_VERSIONS}/core.widgets/status`,
    ],
  },
};

export interface Answer {
  readonly code: number;
  /** `<field>: <message>` of each cause. */
  readonly causes: readonly string[];
}

/** Makes the objects, each once its kind is served (the custom resource's once its CRD is). */
export async function makeObjects(request: Request, objects: CaseSet['objects']): Promise<void> {
  for (const { collection, object } of objects) {
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
