/**
 * Strategic merge patches with `$patch: replace` (and its neighbours) inside values: a map and a
 * list replaced, nested, on a Deployment's pod template and a ConfigMap's data. Recorded against
 * kube-apiserver 1.34 into fixtures/strategic-replace-directive.json (dry runs on the objects
 * below) and replayed against capstan by strategic-replace-directive.test.ts.
 */
export const CONFIG_MAP = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'replace-target', labels: { a: '1', b: '2' }, finalizers: ['example.com/a', 'example.com/b'] },
  data: { a: '1', b: '2' },
};

export const DEPLOYMENT = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'replace-target' },
  spec: {
    selector: { matchLabels: { app: 'x' } },
    template: {
      metadata: { labels: { app: 'x' }, annotations: { one: '1', two: '2' } },
      spec: {
        containers: [
          {
            name: 'c1',
            image: 'busybox',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            resources: { limits: { cpu: '1', memory: '1Gi' } },
            ports: [{ containerPort: 80 }],
          },
          { name: 'c2', image: 'nginx' },
        ],
        nodeSelector: { zone: 'a', disk: 'ssd' },
      },
    },
  },
};

export interface ReplaceCase {
  readonly name: string;
  readonly target: 'configmaps' | 'deployments';
  readonly patch: unknown;
}

export const CASES: readonly ReplaceCase[] = [
  { name: 'data-replaced', target: 'configmaps', patch: { data: { $patch: 'replace', c: '3' } } },
  { name: 'data-replaced-empty', target: 'configmaps', patch: { data: { $patch: 'replace' } } },
  { name: 'data-deleted', target: 'configmaps', patch: { data: { $patch: 'delete' } } },
  { name: 'labels-replaced', target: 'configmaps', patch: { metadata: { labels: { $patch: 'replace', z: '9' } } } },
  { name: 'root-replaced', target: 'configmaps', patch: { $patch: 'replace', data: { r: '1' } } },
  { name: 'root-replaced-empty', target: 'configmaps', patch: { $patch: 'replace' } },
  { name: 'root-deleted', target: 'configmaps', patch: { $patch: 'delete' } },
  {
    name: 'root-replaced-named',
    target: 'configmaps',
    patch: { $patch: 'replace', metadata: { name: 'replace-target' }, data: { r: '1' } },
  },
  {
    name: 'root-replaced-whole',
    target: 'configmaps',
    patch: {
      $patch: 'replace',
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'replace-target', namespace: 'default', labels: { n: '1' } },
      data: { r: '1' },
    },
  },
  { name: 'data-unknown-directive', target: 'configmaps', patch: { data: { $patch: 'merge', c: '3' } } },
  { name: 'data-directive-bad', target: 'configmaps', patch: { data: { $patch: 'bogus' } } },
  { name: 'data-directive-number', target: 'configmaps', patch: { data: { $patch: 1 } } },
  {
    name: 'finalizers-replaced',
    target: 'configmaps',
    patch: { metadata: { finalizers: ['example.com/c', { $patch: 'replace' }] } },
  },
  {
    name: 'template-annotations-replaced',
    target: 'deployments',
    patch: { spec: { template: { metadata: { annotations: { $patch: 'replace', three: '3' } } } } },
  },
  {
    name: 'node-selector-replaced',
    target: 'deployments',
    patch: { spec: { template: { spec: { nodeSelector: { $patch: 'replace', zone: 'b' } } } } },
  },
  {
    name: 'containers-replaced',
    target: 'deployments',
    patch: { spec: { template: { spec: { containers: [{ name: 'c3', image: 'redis' }, { $patch: 'replace' }] } } } },
  },
  {
    name: 'env-replaced-in-container',
    target: 'deployments',
    patch: {
      spec: {
        template: { spec: { containers: [{ name: 'c1', env: [{ name: 'C', value: '3' }, { $patch: 'replace' }] }] } },
      },
    },
  },
  {
    name: 'resources-replaced-in-container',
    target: 'deployments',
    patch: {
      spec: {
        template: {
          spec: { containers: [{ name: 'c1', resources: { $patch: 'replace', requests: { cpu: '100m' } } }] },
        },
      },
    },
  },
  {
    name: 'container-replaced',
    target: 'deployments',
    patch: { spec: { template: { spec: { containers: [{ name: 'c2', image: 'httpd', $patch: 'replace' }] } } } },
  },
  {
    name: 'pod-spec-replaced',
    target: 'deployments',
    patch: { spec: { template: { spec: { $patch: 'replace', containers: [{ name: 'only', image: 'alpine' }] } } } },
  },
  {
    name: 'template-replaced',
    target: 'deployments',
    patch: {
      spec: {
        template: {
          $patch: 'replace',
          metadata: { labels: { app: 'x' } },
          spec: { containers: [{ name: 'only', image: 'alpine' }] },
        },
      },
    },
  },
  {
    name: 'ports-replaced-empty',
    target: 'deployments',
    patch: { spec: { template: { spec: { containers: [{ name: 'c1', ports: [{ $patch: 'replace' }] }] } } } },
  },
  {
    name: 'replace-beside-delete',
    target: 'deployments',
    patch: { spec: { template: { spec: { containers: [{ name: 'c2', $patch: 'delete' }, { $patch: 'replace' }] } } } },
  },
];

/** The parts of an answer the cases compare: its code, and the patched parts of the object or the error. */
export function comparedAnswer(status: number, body: string): unknown {
  const answer = JSON.parse(body) as {
    kind?: string;
    reason?: string;
    message?: string;
    metadata?: { labels?: unknown; annotations?: unknown; finalizers?: unknown };
    data?: unknown;
    spec?: { template?: unknown };
  };
  if (answer.kind === 'Status') return { status, reason: answer.reason, message: answer.message };
  return {
    status,
    labels: answer.metadata?.labels,
    annotations: answer.metadata?.annotations,
    finalizers: answer.metadata?.finalizers,
    data: answer.data,
    template: answer.spec?.template,
  };
}
