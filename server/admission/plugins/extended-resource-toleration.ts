/**
 * The ExtendedResourceToleration plugin: a pod that asks for an extended resource (a GPU as
 * `example.com/gpu`) tolerates the NoSchedule taint of that name, so that nodes which taint
 * themselves by the devices they hold still take the pods that need those devices.
 */
import { isQualifiedName } from '../../validation/names';
import { writes } from '../lookup';
import type { AdmissionPlugin } from '../types';
import type { Toleration } from '../../validation/pod-scheduling';

interface Container {
  readonly resources?: { readonly requests?: Record<string, unknown>; readonly limits?: Record<string, unknown> };
}

/** The reference's IsExtendedResourceName: qualified, outside kubernetes.io, and no quota `requests.` name. */
function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** Two tolerations match when key, operator, value and effect agree (the reference's MatchToleration). */
const sameToleration = (a: Toleration, b: Toleration) =>
  (a.key ?? '') === (b.key ?? '') &&
  (a.operator ?? '') === (b.operator ?? '') &&
  (a.value ?? '') === (b.value ?? '') &&
  (a.effect ?? '') === (b.effect ?? '');

export function extendedResourceTolerationPlugin(): AdmissionPlugin {
  return {
    name: 'ExtendedResourceToleration',
    async admit(attributes) {
      if (
        (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') ||
        !writes(attributes, '', 'pods') ||
        attributes.object === undefined
      )
        return;
      const spec = (attributes.object.spec ??= {}) as {
        containers?: Container[];
        initContainers?: Container[];
        tolerations?: Toleration[] | null;
      };
      const names = new Set<string>();
      for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
        for (const list of [container.resources?.requests, container.resources?.limits]) {
          for (const name of Object.keys(list ?? {})) if (isExtendedResourceName(name)) names.add(name);
        }
      }
      if (names.size === 0) return;
      const tolerations = Array.isArray(spec.tolerations) ? [...spec.tolerations] : [];
      for (const key of [...names].sort()) {
        const wanted: Toleration = { key, operator: 'Exists', effect: 'NoSchedule' };
        const at = tolerations.findIndex((toleration) => sameToleration(toleration, wanted));
        // A matching toleration is replaced by the plain one, as the reference's AddOrUpdateTolerationInPod does.
        if (at < 0) tolerations.push(wanted);
        else tolerations[at] = wanted;
      }
      spec.tolerations = tolerations;
    },
  };
}
