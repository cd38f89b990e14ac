/**
 * AlwaysPullImages as the reference's plugin behaves (its source, k8s.io/kubernetes v1.34.4
 * plugin/pkg/admission/alwayspullimages): every container and image volume of a created pod
 * pulls always; a pod's subresources and an update that brings no new image are left alone; and
 * what a later mutating step sets back is refused. The recorded answers of a real server are in
 * opt-in-plugin-answers.json.
 */
import type { KubeObject } from '../../../api/objects';
import { alwaysPullImagesPlugin } from '../../../server/admission/plugins/always';
import { Reinvocation, type AdmissionAttributes, type AdmissionOperation } from '../../../server/admission/types';
import { admissionAttributes } from '../../helpers/admission-attributes';

function attributes(
  operation: AdmissionOperation,
  object: KubeObject,
  oldObject?: KubeObject,
  subResource = '',
): AdmissionAttributes {
  return admissionAttributes({
    resource: { group: '', version: 'v1', resource: 'pods' },
    kind: 'Pod',
    operation,
    object,
    oldObject,
    namespace: 'default',
    subResource,
  });
}

function pod(policy: string, image = 'busybox', labels: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', labels },
    spec: {
      initContainers: [{ name: 'i', image, imagePullPolicy: policy }],
      containers: [{ name: 'c', image, imagePullPolicy: policy }],
      volumes: [{ name: 'v', image: { reference: 'data:1', pullPolicy: policy } }],
    },
  };
}

const policies = (object: KubeObject) => {
  const spec = object.spec as {
    initContainers: { imagePullPolicy: string }[];
    containers: { imagePullPolicy: string }[];
    volumes: { image: { pullPolicy: string } }[];
  };
  return [
    ...spec.initContainers.map((c) => c.imagePullPolicy),
    ...spec.containers.map((c) => c.imagePullPolicy),
    ...spec.volumes.map((v) => v.image.pullPolicy),
  ];
};

const plugin = alwaysPullImagesPlugin();

test('a created pod pulls every container and image volume always', async () => {
  const created = pod('IfNotPresent');
  await plugin.admit!(attributes('CREATE', created), new Reinvocation());
  expect(policies(created)).toEqual(['Always', 'Always', 'Always']);
});

test('an update with no new image and a subresource are left alone', async () => {
  const stored = pod('IfNotPresent');
  const relabelled = pod('IfNotPresent', 'busybox', { a: 'b' });
  await plugin.admit!(attributes('UPDATE', relabelled, stored), new Reinvocation());
  await plugin.validate!(attributes('UPDATE', relabelled, stored));
  expect(policies(relabelled)).toEqual(['IfNotPresent', 'IfNotPresent', 'IfNotPresent']);
  const viaSubresource = pod('Never', 'other');
  await plugin.admit!(attributes('UPDATE', viaSubresource, stored, 'ephemeralcontainers'), new Reinvocation());
  expect(policies(viaSubresource)).toEqual(['Never', 'Never', 'Never']);
  const newImage = pod('IfNotPresent', 'other');
  await plugin.admit!(attributes('UPDATE', newImage, stored), new Reinvocation());
  expect(policies(newImage)).toEqual(['Always', 'Always', 'Always']);
});

test('what a later step set back is refused, each place named', async () => {
  await expect(plugin.validate!(attributes('CREATE', pod('Never')))).rejects.toMatchObject({
    status: {
      code: 403,
      reason: 'Forbidden',
      message:
        '[pods "p" is forbidden: spec.initContainers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
        'pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "Never": supported values: "Always", ' +
        'pods "p" is forbidden: spec.volumes[0].image.pullPolicy: Unsupported value: "Never": supported values: "Always"]',
    },
  });
  await expect(plugin.validate!(attributes('CREATE', pod('Always')))).resolves.toBeUndefined();
});
