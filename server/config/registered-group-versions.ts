/**
 * Every group-version the reference's schemes register (kube-apiserver's legacy scheme, the
 * apiextensions and aggregator servers' own), served or not. `--runtime-config` accepts a key
 * naming any of them, even one no 1.34 server serves (`authorization.k8s.io/v1beta1`), and
 * refuses a version of a registered group that is missing here; a group missing here is
 * "unknown". Read from pkg/apis/<group>/install in k8s.io/kubernetes v1.34.4.
 */
import type { GroupVersion } from '../../api/identity';

const VERSIONS_BY_GROUP: Readonly<Record<string, readonly string[]>> = {
  '': ['v1'],
  'admission.k8s.io': ['v1', 'v1beta1'],
  'admissionregistration.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'apiextensions.k8s.io': ['v1', 'v1beta1'],
  'apiregistration.k8s.io': ['v1', 'v1beta1'],
  apps: ['v1', 'v1beta2', 'v1beta1'],
  'authentication.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'authorization.k8s.io': ['v1', 'v1beta1'],
  autoscaling: ['v2', 'v1', 'v2beta1', 'v2beta2'],
  batch: ['v1', 'v1beta1'],
  'certificates.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'coordination.k8s.io': ['v1', 'v1beta1', 'v1alpha2'],
  'discovery.k8s.io': ['v1', 'v1beta1'],
  'events.k8s.io': ['v1', 'v1beta1'],
  extensions: ['v1beta1'],
  'flowcontrol.apiserver.k8s.io': ['v1', 'v1beta3', 'v1beta2', 'v1beta1'],
  'imagepolicy.k8s.io': ['v1alpha1'],
  'internal.apiserver.k8s.io': ['v1alpha1'],
  'networking.k8s.io': ['v1', 'v1beta1'],
  'node.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  policy: ['v1', 'v1beta1'],
  'rbac.authorization.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'resource.k8s.io': ['v1beta2', 'v1', 'v1beta1', 'v1alpha3'],
  'scheduling.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'storage.k8s.io': ['v1', 'v1beta1', 'v1alpha1'],
  'storagemigration.k8s.io': ['v1alpha1'],
};

export const REGISTERED_GROUP_VERSIONS: readonly GroupVersion[] = Object.entries(VERSIONS_BY_GROUP).flatMap(
  ([group, versions]) => versions.map((version) => ({ group, version })),
);
