/**
 * The RuntimeClass plugin: a new Pod that names a RuntimeClass takes its pod overhead and its
 * scheduling constraints (node selector, tolerations), and is refused when the class does not
 * exist, when its own overhead or node selector disagrees with the class's, or when it states
 * an overhead without a class that defines one.
 */
import { refusedName } from '../refused-name';
import { deepEqual } from '../../status/field-errors';
import { forbidden } from '../../status/catalogue';
import { getCached, writes, type StorageOf } from '../lookup';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : undefined;
}

function rejected(attributes: AdmissionAttributes, reason: string): Error {
  return forbidden(attributes.resource, refusedName(attributes), reason);
}

export function runtimeClassPlugin(storageOf: StorageOf): AdmissionPlugin {
  const classOf = (name: string) => getCached(storageOf('node.k8s.io', 'runtimeclasses'), name);
  const isPodCreate = (attributes: AdmissionAttributes) =>
    attributes.operation === 'CREATE' && writes(attributes, '', 'pods') && attributes.object !== undefined;

  return {
    name: 'RuntimeClass',
    async admit(attributes) {
      if (!isPodCreate(attributes)) return;
      const spec = (attributes.object!.spec ??= {}) as Fields;
      if (typeof spec.runtimeClassName !== 'string' || spec.runtimeClassName === '') return;
      const runtimeClass = await classOf(spec.runtimeClassName);
      if (runtimeClass === undefined)
        throw rejected(attributes, `pod rejected: RuntimeClass ${JSON.stringify(spec.runtimeClassName)} not found`);
      const podFixed = record(record(runtimeClass.overhead)?.podFixed);
      if (podFixed !== undefined) {
        if (spec.overhead !== undefined && spec.overhead !== null && !deepEqual(spec.overhead, podFixed)) {
          throw rejected(attributes, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
        }
        spec.overhead = { ...podFixed };
      }
      const scheduling = record(runtimeClass.scheduling);
      const classSelector = record(scheduling?.nodeSelector) ?? {};
      const podSelector = record(spec.nodeSelector) ?? {};
      for (const [key, value] of Object.entries(classSelector)) {
        if (key in podSelector && podSelector[key] !== value) {
          throw rejected(
            attributes,
            `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(podSelector[key])}`,
          );
        }
      }
      if (Object.keys(classSelector).length > 0) spec.nodeSelector = { ...podSelector, ...classSelector };
      const classTolerations = Array.isArray(scheduling?.tolerations) ? (scheduling!.tolerations as unknown[]) : [];
      if (classTolerations.length > 0) {
        const tolerations = Array.isArray(spec.tolerations) ? [...(spec.tolerations as unknown[])] : [];
        for (const toleration of classTolerations)
          if (!tolerations.some((existing) => deepEqual(existing, toleration))) tolerations.push(toleration);
        spec.tolerations = tolerations;
      }
    },
    async validate(attributes) {
      if (!isPodCreate(attributes)) return;
      const spec = (attributes.object!.spec ?? {}) as Fields;
      if (spec.overhead === undefined || spec.overhead === null) return;
      const runtimeClass =
        typeof spec.runtimeClassName === 'string' && spec.runtimeClassName !== ''
          ? await classOf(spec.runtimeClassName)
          : undefined;
      if (record(runtimeClass?.overhead)?.podFixed === undefined) {
        throw rejected(
          attributes,
          'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
        );
      }
    },
  };
}
