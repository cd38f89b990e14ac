/**
 * A workload's pod template may not set activeDeadlineSeconds; kube-apiserver 1.34.4 names the
 * kind whose template rule refused it (a Deployment's is ReplicaSet's), these causes word for word.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';

const TEMPLATE = {
  metadata: { labels: { a: 'b' } },
  spec: { containers: [{ name: 'c', image: 'i' }], activeDeadlineSeconds: 5 },
};

test.each([
  ['deployments', 'Deployment', 'ReplicaSet', {}],
  ['replicasets', 'ReplicaSet', 'ReplicaSet', {}],
  ['daemonsets', 'DaemonSet', 'DaemonSet', {}],
  ['statefulsets', 'StatefulSet', 'StatefulSet', { serviceName: 's' }],
])('%s', (resource, kind, named, extra) => {
  const workload = {
    apiVersion: 'apps/v1',
    kind,
    metadata: { name: 'x', namespace: 'default' },
    spec: { ...extra, selector: { matchLabels: { a: 'b' } }, template: TEMPLATE },
  } as KubeObject;
  expect(created(typeOf('apps', resource), workload, {}).errors).toEqual([
    `spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ${named} is not Supported`,
  ]);
});
