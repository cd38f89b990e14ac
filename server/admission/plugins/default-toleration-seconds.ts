/**
 * The DefaultTolerationSeconds plugin: a Pod that does not tolerate the not-ready and
 * unreachable NoExecute taints already tolerates each for `--default-not-ready-toleration-seconds`
 * and `--default-unreachable-toleration-seconds` (300 s), so that pods are evicted from a lost
 * node after that long rather than at once. Updates get them too, as in the reference: an
 * update that leaves them out keeps them, where the rule that stored tolerations may not go
 * would otherwise refuse it.
 */
import { writes } from '../lookup';
import type { AdmissionPlugin } from '../types';
import type { Toleration } from '../../validation/pod-scheduling';

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** Whether an existing toleration already covers the NoExecute taint `key`. */
function tolerates(tolerations: readonly Toleration[], key: string): boolean {
  return tolerations.some((toleration) => {
    const effectMatches =
      toleration.effect === undefined || toleration.effect === '' || toleration.effect === 'NoExecute';
    const keyMatches =
      toleration.key === key ||
      ((toleration.key === undefined || toleration.key === '') && toleration.operator === 'Exists');
    return effectMatches && keyMatches;
  });
}

export function defaultTolerationSecondsPlugin(seconds: { notReady: number; unreachable: number }): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    async admit(attributes) {
      const operation = attributes.operation;
      if (operation !== 'CREATE' && operation !== 'UPDATE') return;
      if (!writes(attributes, '', 'pods') || attributes.object === undefined) return;
      const spec = (attributes.object.spec ??= {}) as { tolerations?: Toleration[] | null };
      const tolerations = Array.isArray(spec.tolerations) ? spec.tolerations : [];
      const added: object[] = [];
      if (!tolerates(tolerations, NOT_READY))
        added.push({ key: NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds.notReady });
      if (!tolerates(tolerations, UNREACHABLE))
        added.push({
          key: UNREACHABLE,
          operator: 'Exists',
          effect: 'NoExecute',
          tolerationSeconds: seconds.unreachable,
        });
      if (added.length > 0) spec.tolerations = [...tolerations, ...(added as Toleration[])];
    },
  };
}
