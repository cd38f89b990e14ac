/**
 * The LimitPodHardAntiAffinityTopology plugin: a pod's required anti-affinity may only keep
 * pods apart per node (`kubernetes.io/hostname`), so that one pod cannot reserve a whole zone.
 */
import { forbidden } from '../../status/catalogue';
import { writes } from '../lookup';
import { refusedName } from '../refused-name';
import type { AdmissionPlugin } from '../types';

const HOSTNAME = 'kubernetes.io/hostname';

interface AntiAffinityTerm {
  readonly topologyKey?: string;
}

export function limitPodHardAntiAffinityTopologyPlugin(): AdmissionPlugin {
  return {
    name: 'LimitPodHardAntiAffinityTopology',
    async validate(attributes) {
      if ((attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') || !writes(attributes, '', 'pods'))
        return;
      const spec = attributes.object?.spec as
        | { affinity?: { podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: AntiAffinityTerm[] } } }
        | undefined;
      for (const term of spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
        const key = term.topologyKey ?? '';
        if (key === HOSTNAME) continue;
        const reason = `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${key} but only key ${HOSTNAME} is allowed`;
        throw forbidden({ group: '', resource: 'pods' }, refusedName(attributes), reason);
      }
    },
  };
}
