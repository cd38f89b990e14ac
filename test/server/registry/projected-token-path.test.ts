/**
 * A projected service account token is written inside its volume, unless the stored spec of an
 * update already writes one outside it (an older server took that): the reference's
 * AllowNonLocalProjectedTokenPath, set from the old pod spec or template, lets such objects be
 * updated. The create's cause is worded as kube-apiserver 1.34.4 worded it for a template's.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const pods = typeOf('', 'pods');
const deployments = typeOf('apps', 'deployments');

const spec = (tokenPath: string) => ({
  serviceAccountName: 'sa',
  containers: [{ name: 'c', image: 'i' }],
  volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: tokenPath } }] } }],
});
const pod = (tokenPath: string) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default' },
    spec: spec(tokenPath),
  }) as KubeObject;
const deployment = (tokenPath: string) =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default' },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: spec(tokenPath) },
    },
  }) as KubeObject;

const RELATIVE = 'must be a relative path';

test('a new pod writes its token inside the volume', () => {
  expect(created(pods, pod('/abs'), {}).errors).toEqual([
    `spec.volumes[0].projected.path: Invalid value: "/abs": ${RELATIVE}`,
  ]);
});

test('a stored pod whose token is written outside its volume takes a label', () => {
  const stored = created(pods, pod('/abs'), {}).object;
  const labelled = updated(pods, stored, (next) => (next.metadata.labels = { a: 'b' }), {});
  expect(labelled.errors).toEqual([]);
});

test("a Deployment's template may keep a token path outside the volume, not move one there", () => {
  const outside = created(deployments, deployment('/abs'), {}).object;
  const scaled = updated(deployments, outside, (next) => ((next.spec as { replicas: number }).replicas = 3), {});
  expect(scaled.errors).toEqual([]);
  const inside = created(deployments, deployment('token'), {}).object;
  const moved = updated(deployments, inside, (next) => Object.assign(next, { spec: deployment('/abs').spec }), {});
  expect(moved.errors).toEqual([`spec.template.spec.volumes[0].projected.path: Invalid value: "/abs": ${RELATIVE}`]);
});
