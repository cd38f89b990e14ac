/**
 * The reference's root-ca-cert-publisher: every live namespace has the ConfigMap
 * `kube-root-ca.crt` holding the CA that verifies this server (`ca.crt`), so workloads can
 * trust `kubernetes.default.svc`. A changed or removed map is put back.
 */
import type { KubeObject } from '../../api/objects';
import type { ObjectOperations } from '../client/operations';
import { startPerNamespaceController } from './per-namespace';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

function upToDate(current: KubeObject, caPem: string): boolean {
  const data = current.data as Record<string, string> | undefined;
  const annotations = current.metadata.annotations as Record<string, string> | undefined;
  return (
    data !== undefined &&
    Object.keys(data).length === 1 &&
    data['ca.crt'] === caPem &&
    annotations?.[DESCRIPTION_ANNOTATION] === DESCRIPTION
  );
}

export function startRootCaPublisher(operations: ObjectOperations, caPem: string, stop: AbortSignal): void {
  startPerNamespaceController(
    operations,
    {
      resource: 'configmaps',
      name: ROOT_CA_CONFIGMAP,
      async reconcile(namespace, current, type) {
        if (current === undefined) {
          await operations.createObject(type, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
            data: { 'ca.crt': caPem },
          });
          return;
        }
        if (upToDate(current, caPem)) return;
        await operations.updateObject(type, { namespace, name: ROOT_CA_CONFIGMAP }, (object) => {
          object.data = { 'ca.crt': caPem };
          const annotations = (object.metadata.annotations ?? {}) as Record<string, string>;
          object.metadata.annotations = { ...annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION };
        });
      },
    },
    stop,
  );
}
