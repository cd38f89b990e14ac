/**
 * The Priority plugin: a new Pod's priority and preemption policy come from its PriorityClass
 * (or the cluster's default class, else 0 and PreemptLowerPriority), and a Pod may not state
 * other values itself; an update that leaves them out keeps them; only one PriorityClass may be
 * the global default.
 */
import { refusedName } from '../refused-name';
import type { KubeObject } from '../../../api/objects';
import { forbidden } from '../../status/catalogue';
import { getCached, listCached, writes, type StorageOf } from '../lookup';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

const DEFAULT_PRIORITY = 0;
const DEFAULT_PREEMPTION = 'PreemptLowerPriority';

interface Computed {
  readonly className?: string;
  readonly priority: number;
  readonly preemptionPolicy: string;
}

function fromClass(priorityClass: KubeObject): Computed {
  return {
    className: priorityClass.metadata.name,
    priority: Number(priorityClass.value ?? 0),
    preemptionPolicy:
      typeof priorityClass.preemptionPolicy === 'string' ? priorityClass.preemptionPolicy : DEFAULT_PREEMPTION,
  };
}

/**
 * An update that leaves out what this plugin set at create (a `kubectl replace` of the pod's
 * manifest) keeps the stored values, as the reference's plugin does; validation then refuses any
 * other change to them.
 */
function keepPriority(pod: KubeObject, oldPod: KubeObject | undefined): void {
  const spec = pod.spec as Record<string, unknown> | undefined;
  const oldSpec = oldPod?.spec as Record<string, unknown> | undefined;
  if (spec === undefined || oldSpec === undefined) return;
  for (const field of ['priority', 'preemptionPolicy']) {
    if ((spec[field] === undefined || spec[field] === null) && oldSpec[field] !== undefined && oldSpec[field] !== null)
      spec[field] = oldSpec[field];
  }
}

export function priorityPlugin(storageOf: StorageOf): AdmissionPlugin {
  const classes = () => storageOf('scheduling.k8s.io', 'priorityclasses');

  async function computed(attributes: AdmissionAttributes, className: string | undefined): Promise<Computed> {
    if (className) {
      const found = await getCached(classes(), className);
      if (found === undefined)
        throw forbidden(
          attributes.resource,
          refusedName(attributes),
          `no PriorityClass with name ${className} was found`,
        );
      return fromClass(found);
    }
    const globalDefault = (await listCached(classes())).filter((candidate) => candidate.globalDefault === true);
    // Should several claim it (created concurrently), the lowest value wins, as in the reference.
    globalDefault.sort((a, b) => Number(a.value ?? 0) - Number(b.value ?? 0));
    return globalDefault.length > 0
      ? fromClass(globalDefault[0])
      : { priority: DEFAULT_PRIORITY, preemptionPolicy: DEFAULT_PREEMPTION };
  }

  return {
    name: 'Priority',
    async admit(attributes) {
      if (!writes(attributes, '', 'pods') || attributes.object === undefined) return;
      if (attributes.operation === 'UPDATE') return keepPriority(attributes.object, attributes.oldObject);
      if (attributes.operation !== 'CREATE') return;
      const spec = (attributes.object.spec ??= {}) as Record<string, unknown>;
      const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : undefined;
      const result = await computed(attributes, className);
      if (spec.priority !== undefined && spec.priority !== null && spec.priority !== result.priority) {
        throw forbidden(
          attributes.resource,
          attributes.name,
          `the integer value of priority (${String(spec.priority)}) must not be provided in pod spec; priority admission controller computed ${result.priority} from the given PriorityClass name`,
        );
      }
      if (
        spec.preemptionPolicy !== undefined &&
        spec.preemptionPolicy !== null &&
        spec.preemptionPolicy !== result.preemptionPolicy
      ) {
        throw forbidden(
          attributes.resource,
          attributes.name,
          `the string value of PreemptionPolicy (${String(spec.preemptionPolicy)}) must not be provided in pod spec; priority admission controller computed ${result.preemptionPolicy} from the given PriorityClass name`,
        );
      }
      if (result.className !== undefined) spec.priorityClassName = result.className;
      spec.priority = result.priority;
      spec.preemptionPolicy = result.preemptionPolicy;
    },
    async validate(attributes) {
      if (!writes(attributes, 'scheduling.k8s.io', 'priorityclasses') || attributes.object?.globalDefault !== true)
        return;
      if (attributes.operation !== 'CREATE' && attributes.operation !== 'UPDATE') return;
      const other = (await listCached(classes())).find(
        (candidate) => candidate.globalDefault === true && candidate.metadata.name !== attributes.name,
      );
      if (other !== undefined) {
        throw forbidden(
          attributes.resource,
          refusedName(attributes),
          `PriorityClass ${other.metadata.name} is already marked as default. Only one default can exist`,
        );
      }
    },
  };
}
