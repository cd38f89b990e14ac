/**
 * PodTopologyLabels: a pod bound to a node (created with spec.nodeName, or through a Binding)
 * carries the node's zone and region labels, so that workloads can read their own topology
 * through the downward API. On by default in 1.34 but acting only behind the alpha
 * PodTopologyLabelsAdmission gate, as in the reference; the Binding's labels reach the pod in
 * the binding subresource, behind the same gate.
 */
import type { KubeObject } from '../../../api/objects';
import { getCached, type StorageOf } from '../lookup';
import type { AdmissionPlugin } from '../types';

const TOPOLOGY_LABELS = ['topology.kubernetes.io/zone', 'topology.kubernetes.io/region'];

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};

export function podTopologyLabelsPlugin(storageOf: StorageOf, enabled: boolean): AdmissionPlugin {
  if (!enabled) return { name: 'PodTopologyLabels' };

  async function copyFromNode(target: KubeObject, nodeName: unknown): Promise<void> {
    if (typeof nodeName !== 'string' || nodeName === '') return;
    const node = await getCached(storageOf('', 'nodes'), nodeName);
    const labels = node?.metadata.labels ?? {};
    const found = TOPOLOGY_LABELS.filter((key) => labels[key] !== undefined);
    if (found.length === 0) return;
    target.metadata.labels = {
      ...(target.metadata.labels ?? {}),
      ...Object.fromEntries(found.map((key) => [key, labels[key]])),
    };
  }

  return {
    name: 'PodTopologyLabels',
    async admit(attributes) {
      const { resource, operation, object, subResource } = attributes;
      if (operation !== 'CREATE' || resource.group !== '' || resource.resource !== 'pods' || object === undefined)
        return;
      if (subResource === '') await copyFromNode(object, record(object.spec).nodeName);
      else if (subResource === 'binding' && record(object.target).kind === 'Node')
        await copyFromNode(object, record(object.target).name);
    },
  };
}
