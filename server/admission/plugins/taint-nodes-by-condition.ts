/**
 * The TaintNodesByCondition plugin: a new Node starts tainted not-ready (NoSchedule), so nothing
 * is scheduled onto it before its kubelet reports it ready and the node lifecycle controller
 * lifts the taint.
 */
import { writes } from '../lookup';
import type { AdmissionPlugin } from '../types';

const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' };

export function taintNodesByConditionPlugin(): AdmissionPlugin {
  return {
    name: 'TaintNodesByCondition',
    async admit(attributes) {
      if (attributes.operation !== 'CREATE' || !writes(attributes, '', 'nodes') || attributes.object === undefined)
        return;
      const spec = (attributes.object.spec ??= {}) as { taints?: { key?: string; effect?: string }[] | null };
      const taints = Array.isArray(spec.taints) ? spec.taints : [];
      if (taints.some((taint) => taint.key === NOT_READY_TAINT.key && taint.effect === NOT_READY_TAINT.effect)) return;
      spec.taints = [...taints, { ...NOT_READY_TAINT }];
    },
  };
}
