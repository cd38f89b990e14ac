/**
 * NodeRestriction: the writes the Node authorizer lets every kubelet make, narrowed to the
 * kubelet's own node. A `system:node:<name>` user may change only its own Node (not its taints,
 * owner references or config source, nor labels outside the kubelet's set), create and delete
 * only mirror pods bound to itself that name no other API object, update the status of and
 * evict only pods bound to itself, update only the status fields of a claim that the kubelet
 * reports, touch only its own Lease, CSINode and ResourceSlices, request tokens only bound to
 * its own pods (for an audience they use), and ask for certificates only in its own name. The
 * messages are the reference's (1.34).
 */
import type { KubeObject } from '../../../api/objects';
import type { Authorizer } from '../../authz/types';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../../authz/node/node-authorizer';
import { podConfigMapNames, podSecretNames } from '../../authz/node/pod-references';
import { isMirrorPod, MIRROR_POD_ANNOTATION } from '../../registry/kinds/mirror-pod';
import { csrSubject } from '../../pki/csr-subject';
import { forbidden, notFound } from '../../status/catalogue';
import type { StatusError } from '../../status/status-error';
import { deepEqual } from '../../status/field-errors';
import { internalDiff } from '../../validation/internal-json';
import { semanticEqual } from '../../validation/semantic-equality';
import { getCached, type StorageOf } from '../lookup';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
const list = (value: unknown): Fields[] => (Array.isArray(value) ? value.map(record) : []);
const quoted = (text: string) => JSON.stringify(text);

/** Labels a kubelet sets on its Node, whatever their namespace. */
const KUBELET_LABELS: ReadonlySet<string> = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
/** Label namespaces (and their subdomains) a kubelet may set. */
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
/** The namespace kept for labels a kubelet must never set on itself (workload isolation). */
const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';
/** Signers whose certificates name a node. */
const KUBELET_SIGNERS: ReadonlySet<string> = new Set([
  'kubernetes.io/kubelet-serving',
  'kubernetes.io/kube-apiserver-client-kubelet',
]);

const labelNamespace = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inNamespace = (namespace: string, domain: string): boolean =>
  namespace === domain || namespace.endsWith(`.${domain}`);

function forbiddenLabels(
  labels: Readonly<Record<string, string>>,
  oldLabels: Readonly<Record<string, string>>,
): string[] {
  const modified = new Set<string>();
  for (const key of new Set([...Object.keys(labels), ...Object.keys(oldLabels)]))
    if (labels[key] !== oldLabels[key]) modified.add(key);
  return [...modified]
    .filter((key) => {
      const namespace = labelNamespace(key);
      if (inNamespace(namespace, NODE_RESTRICTION_NAMESPACE)) return true;
      const kubernetes = inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
      const kubelet =
        KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(namespace, allowed));
      return kubernetes && !kubelet;
    })
    .sort();
}

/** The first API object kind a mirror pod would reach, in the reference's words, if any. */
function apiObjectReference(pod: KubeObject): string | undefined {
  const spec = record(pod.spec);
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '') return 'serviceaccounts';
  if (podSecretNames(pod).length > 0) return 'secrets';
  if (podConfigMapNames(pod).length > 0) return 'configmaps';
  if (list(spec.resourceClaims).length > 0) return 'resourceclaims';
  for (const volume of list(spec.volumes)) {
    if (volume.configMap !== undefined) return 'configmaps (via configmap volumes)';
    if (volume.secret !== undefined) return 'secrets (via secret volumes)';
    if (volume.csi !== undefined) return 'csidrivers (via CSI volumes)';
    if (volume.glusterfs !== undefined) return 'endpoints (via glusterFS volumes)';
    if (volume.persistentVolumeClaim !== undefined) return 'persistentvolumeclaims';
    if (volume.ephemeral !== undefined) return 'persistentvolumeclaims (via ephemeral volumes)';
    if (volume.azureFile !== undefined) return 'secrets (via azureFile volumes)';
    for (const source of list(record(volume.projected).sources)) {
      if (source.configMap !== undefined) return 'configmaps (via projected volumes)';
      if (source.secret !== undefined) return 'secrets (via projected volumes)';
      if (source.serviceAccountToken !== undefined) return 'serviceaccounts (via projected volumes)';
      if (source.clusterTrustBundle !== undefined) return 'clustertrustbundles';
      if (source.podCertificate !== undefined) return 'podcertificates';
    }
  }
  return undefined;
}

export interface NodeRestrictionDependencies {
  readonly storageOf: StorageOf;
  /** For a token audience no volume of the pod names: the node needs `request-serviceaccounts-token-audience`. */
  readonly authorizer: Authorizer;
  readonly featureEnabled: (gate: string) => boolean;
}

export function nodeRestrictionPlugin({
  storageOf,
  authorizer,
  featureEnabled,
}: NodeRestrictionDependencies): AdmissionPlugin {
  const getPod = (namespace: string, name: string) => getCached(storageOf('', 'pods'), name, namespace);

  /** The pod a request names, or the reference's NotFound. */
  async function existingPod(attributes: AdmissionAttributes, name: string): Promise<KubeObject> {
    const pod = await getPod(attributes.namespace, name);
    if (pod === undefined) throw notFound({ group: '', resource: 'pods' }, name);
    return pod;
  }

  async function admitPodCreate(node: string, pod: KubeObject, refuse: (reason: string) => StatusError): Promise<void> {
    if (!isMirrorPod(pod)) {
      throw refuse(
        `pod does not have ${quoted(MIRROR_POD_ANNOTATION)} annotation, node ${quoted(node)} can only create mirror pods`,
      );
    }
    if (record(pod.spec).nodeName !== node)
      throw refuse(`node ${quoted(node)} can only create pods with spec.nodeName set to itself`);
    const owners = pod.metadata.ownerReferences ?? [];
    if (owners.length > 1)
      throw refuse(`node ${quoted(node)} can only create pods with a single owner reference set to itself`);
    const owner = owners[0];
    if (owner === undefined || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) {
      throw refuse(`node ${quoted(node)} can only create pods with an owner reference set to itself`);
    }
    if (owner.controller !== true)
      throw refuse(`node ${quoted(node)} can only create pods with a controller owner reference set to itself`);
    if (owner.blockOwnerDeletion === true)
      throw refuse(`node ${quoted(node)} must not set blockOwnerDeletion on an owner reference`);
    const nodeObject = await getCached(storageOf('', 'nodes'), node);
    if (nodeObject === undefined) throw notFound({ group: '', resource: 'nodes' }, node);
    if (owner.uid !== nodeObject.metadata.uid)
      throw refuse(`node ${node} UID mismatch: expected ${String(owner.uid)} got ${String(nodeObject.metadata.uid)}`);
    const reference = apiObjectReference(pod);
    if (reference !== undefined) throw refuse(`node ${quoted(node)} can not create pods that reference ${reference}`);
  }

  async function admitPod(
    node: string,
    attributes: AdmissionAttributes,
    refuse: (reason: string) => StatusError,
  ): Promise<void> {
    const { operation, subResource } = attributes;
    if (subResource === '') {
      if (operation === 'CREATE') return admitPodCreate(node, attributes.object!, refuse);
      if (operation === 'DELETE') {
        const pod = attributes.oldObject ?? (await existingPod(attributes, attributes.name));
        if (record(pod.spec).nodeName !== node)
          throw refuse(`node ${quoted(node)} can only delete pods with spec.nodeName set to itself`);
        return;
      }
      throw refuse(
        `unexpected operation ${quoted(operation)}, node ${quoted(node)} can only create and delete mirror pods`,
      );
    }
    if (subResource === 'status') {
      if (operation !== 'UPDATE') throw refuse(`unexpected operation ${quoted(operation)}`);
      const [pod, old] = [attributes.object!, attributes.oldObject!];
      if (record(old.spec).nodeName !== node)
        throw refuse(`node ${quoted(node)} can only update pod status for pods with spec.nodeName set to itself`);
      if (!deepEqual(pod.metadata.labels ?? {}, old.metadata.labels ?? {}))
        throw refuse(`node ${quoted(node)} cannot update labels through pod status`);
      const [status, oldStatus] = [record(pod.status), record(old.status)];
      const claims = (value: Fields) =>
        list(value.resourceClaimStatuses).map((entry) => [entry.name, entry.resourceClaimName ?? null]);
      if (!deepEqual(claims(status), claims(oldStatus)))
        throw refuse(`node ${quoted(node)} cannot update resource claim statues`);
      if (!deepEqual(status.extendedResourceClaimStatus ?? null, oldStatus.extendedResourceClaimStatus ?? null))
        throw refuse(`node ${quoted(node)} cannot update extended resource claim status`);
      return;
    }
    if (subResource === 'eviction') {
      // The eviction is admitted as the create of an Eviction; the pod's deletion that follows is its own doing.
      if (operation === 'DELETE') return;
      if (operation !== 'CREATE') throw refuse(`unexpected operation ${operation}`);
      const podName = attributes.name || String(attributes.object?.metadata.name ?? '');
      if (podName === '') throw refuse('could not determine pod from request data');
      const pod = await existingPod(attributes, podName);
      if (record(pod.spec).nodeName !== node)
        throw refuse(`node ${node} can only evict pods with spec.nodeName set to itself`);
      return;
    }
    throw refuse(`unexpected pod subresource ${quoted(subResource)}, only 'status' and 'eviction' are allowed`);
  }

  function admitNode(node: string, attributes: AdmissionAttributes, refuse: (reason: string) => StatusError): void {
    if (attributes.name !== node)
      throw refuse(`node ${quoted(node)} is not allowed to modify node ${quoted(attributes.name)}`);
    const object = attributes.object;
    if (attributes.operation === 'CREATE' && object !== undefined) {
      if (record(object.spec).configSource !== undefined && record(object.spec).configSource !== null) {
        throw refuse(`node ${quoted(node)} is not allowed to create pods with a non-nil configSource`);
      }
      const labels = forbiddenLabels(object.metadata.labels ?? {}, {});
      if (labels.length > 0)
        throw refuse(`node ${quoted(node)} is not allowed to set the following labels: ${labels.join(', ')}`);
    }
    if (attributes.operation === 'UPDATE' && object !== undefined) {
      const old = attributes.oldObject!;
      const [spec, oldSpec] = [record(object.spec), record(old.spec)];
      if (
        spec.configSource !== undefined &&
        spec.configSource !== null &&
        !deepEqual(spec.configSource, oldSpec.configSource)
      ) {
        throw refuse(`node ${quoted(node)} is not allowed to update configSource to a new non-nil configSource`);
      }
      if (!deepEqual(spec.taints ?? [], oldSpec.taints ?? []))
        throw refuse(`node ${quoted(node)} is not allowed to modify taints`);
      if (!deepEqual(object.metadata.ownerReferences ?? [], old.metadata.ownerReferences ?? []))
        throw refuse(`node ${quoted(node)} is not allowed to modify ownerReferences`);
      const labels = forbiddenLabels(object.metadata.labels ?? {}, old.metadata.labels ?? {});
      if (labels.length > 0) throw refuse(`is not allowed to modify labels: ${labels.join(', ')}`);
    }
  }

  function admitClaimStatus(
    node: string,
    attributes: AdmissionAttributes,
    refuse: (reason: string) => StatusError,
  ): void {
    if (attributes.subResource !== 'status') throw refuse('may only update PVC status');
    if (attributes.operation !== 'UPDATE') throw refuse(`unexpected operation ${quoted(attributes.operation)}`);
    // What the kubelet reports of a volume expansion; everything else stays as it is. The
    // reference compares (and diffs) internal objects, whose kind and apiVersion are empty.
    const comparable = (claim: KubeObject) => {
      const { resourceVersion: _version, managedFields: _fields, ...metadata } = claim.metadata;
      const {
        capacity: _capacity,
        conditions: _conditions,
        allocatedResourceStatuses: _statuses,
        allocatedResources: _allocated,
        ...status
      } = record(claim.status);
      const { apiVersion: _apiVersion, kind: _kind, ...rest } = claim;
      return { ...rest, metadata, status };
    };
    const [now, before] = [comparable(attributes.object!), comparable(attributes.oldObject!)];
    if (!semanticEqual('core.PersistentVolumeClaim', now, before)) {
      throw refuse(
        `node ${quoted(node)} is not allowed to update fields other than status.quantity and status.conditions: ${internalDiff('core.PersistentVolumeClaim', before, now)}`,
      );
    }
  }

  /** Whether a volume of the pod (a projected token, or a CSI driver that asks for tokens) uses this audience. */
  async function podUsesAudience(pod: KubeObject, audience: string): Promise<boolean> {
    const drivers: string[] = [];
    for (const volume of list(record(pod.spec).volumes)) {
      for (const source of list(record(volume.projected).sources)) {
        if (
          source.serviceAccountToken !== undefined &&
          (record(source.serviceAccountToken).audience ?? '') === audience
        )
          return true;
      }
      let claimName: string | undefined;
      if (volume.persistentVolumeClaim !== undefined)
        claimName = String(record(volume.persistentVolumeClaim).claimName ?? '');
      else if (record(volume.ephemeral).volumeClaimTemplate !== undefined)
        claimName = `${pod.metadata.name}-${String(volume.name)}`;
      if (claimName !== undefined) {
        const claim = await getCached(
          storageOf('', 'persistentvolumeclaims'),
          claimName,
          String(pod.metadata.namespace),
        );
        const volumeName = record(claim?.spec).volumeName;
        const bound =
          typeof volumeName === 'string' && volumeName !== ''
            ? await getCached(storageOf('', 'persistentvolumes'), volumeName)
            : undefined;
        const driver = record(record(bound?.spec).csi).driver;
        if (typeof driver === 'string') drivers.push(driver);
      } else if (typeof record(volume.csi).driver === 'string') {
        drivers.push(String(record(volume.csi).driver));
      }
    }
    for (const driver of drivers) {
      const found = await getCached(storageOf('storage.k8s.io', 'csidrivers'), driver);
      if (list(record(found?.spec).tokenRequests).some((request) => (request.audience ?? '') === audience)) return true;
    }
    return false;
  }

  async function admitTokenRequest(
    node: string,
    attributes: AdmissionAttributes,
    refuse: (reason: string) => StatusError,
  ): Promise<void> {
    if (attributes.operation !== 'CREATE' || attributes.subResource !== 'token') return;
    const spec = record(attributes.object?.spec);
    const ref = record(spec.boundObjectRef);
    if (ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || !ref.name)
      throw refuse('node requested token not bound to a pod');
    if (!ref.uid) throw refuse('node requested token with a pod binding without a uid');
    const pod = await existingPod(attributes, String(ref.name));
    if (ref.uid !== pod.metadata.uid) {
      throw refuse(
        `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    if (record(pod.spec).nodeName !== node)
      throw refuse('node requested token bound to a pod scheduled on a different node');
    if (!featureEnabled('ServiceAccountNodeAudienceRestriction')) return;
    const audiences = Array.isArray(spec.audiences) ? spec.audiences.map(String) : [];
    if (audiences.length > 1) throw refuse('node may only request 0 or 1 audiences');
    const audience = audiences[0] ?? '';
    if (await podUsesAudience(pod, audience)) return;
    const { decision } = await authorizer.authorize({
      user: attributes.userInfo,
      verb: 'request-serviceaccounts-token-audience',
      isResourceRequest: true,
      path: '',
      namespace: attributes.namespace,
      apiGroup: '',
      apiVersion: 'v1',
      resource: audience,
      subresource: '',
      name: attributes.name,
    });
    if (decision !== 'allow') {
      throw refuse(
        `audience ${quoted(audience)} not found in pod spec volume, ${attributes.userInfo.name} is not authorized to request tokens for this audience`,
      );
    }
  }

  function admitLease(node: string, attributes: AdmissionAttributes, refuse: (reason: string) => StatusError): void {
    if (attributes.namespace !== NODE_LEASE_NAMESPACE)
      throw refuse(`can only access leases in the ${quoted(NODE_LEASE_NAMESPACE)} system namespace`);
    const name = attributes.operation === 'CREATE' ? attributes.object?.metadata.name : attributes.name;
    if (name !== node) throw refuse('can only access node lease with the same name as the requesting node');
  }

  function admitCSINode(node: string, attributes: AdmissionAttributes, refuse: (reason: string) => StatusError): void {
    const name = attributes.operation === 'CREATE' ? attributes.object?.metadata.name : attributes.name;
    if (name !== node) throw refuse('can only access CSINode with the same name as the requesting node');
  }

  function admitResourceSlice(
    node: string,
    attributes: AdmissionAttributes,
    refuse: (reason: string) => StatusError,
  ): void {
    if (attributes.operation === 'CREATE' && record(attributes.object?.spec).nodeName !== node) {
      throw refuse('can only create ResourceSlice with the same NodeName as the requesting node');
    }
    if (attributes.operation === 'DELETE' && record(attributes.oldObject?.spec).nodeName !== node) {
      throw refuse('can only delete ResourceSlice with the same NodeName as the requesting node');
    }
  }

  function admitCSR(node: string, attributes: AdmissionAttributes, refuse: (reason: string) => StatusError): void {
    if (attributes.operation !== 'CREATE' || featureEnabled('AllowInsecureKubeletCertificateSigningRequests')) return;
    const spec = record(attributes.object?.spec);
    if (!KUBELET_SIGNERS.has(String(spec.signerName))) return;
    let commonName: string;
    try {
      ({ commonName } = csrSubject(spec.request));
    } catch (error) {
      throw refuse(`unable to parse csr: ${(error as Error).message}`);
    }
    if (commonName !== `system:node:${node}`) throw refuse(`can only create a node CSR with CN=system:node:${node}`);
  }

  return {
    name: 'NodeRestriction',
    async admit(attributes) {
      if (attributes.operation === 'CONNECT') return;
      const node = nodeIdentity(attributes.userInfo);
      if (node === undefined) return;
      const name = attributes.name || String(attributes.object?.metadata.name ?? '');
      const refuse = (reason: string) => forbidden(attributes.resource, name, reason);
      if (node === '') throw refuse(`could not determine node from user ${quoted(attributes.userInfo.name)}`);
      const { group, resource } = attributes.resource;
      switch (group === '' ? resource : `${resource}.${group}`) {
        case 'pods':
          return admitPod(node, attributes, refuse);
        case 'nodes':
          return admitNode(node, attributes, refuse);
        case 'persistentvolumeclaims':
          return admitClaimStatus(node, attributes, refuse);
        case 'serviceaccounts':
          return admitTokenRequest(node, attributes, refuse);
        case 'leases.coordination.k8s.io':
          return admitLease(node, attributes, refuse);
        case 'csinodes.storage.k8s.io':
          return admitCSINode(node, attributes, refuse);
        case 'resourceslices.resource.k8s.io':
          return admitResourceSlice(node, attributes, refuse);
        case 'certificatesigningrequests.certificates.k8s.io':
          return admitCSR(node, attributes, refuse);
        default:
          return;
      }
    },
  };
}
