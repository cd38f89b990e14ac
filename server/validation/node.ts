/** node.k8s.io rules, with the reference's texts. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../registry/types';
import { duplicate, FieldPath, immutable, invalid } from '../status/field-errors';
import { isDNS1123Label } from './names';
import { validateLabels } from './object-meta';
import { validateContainerResourceName } from './resource-names';
import { validateResourceRequirements } from './resource-requirements';
import { tolerationIdentity, validateTolerations, type Toleration } from './pod-scheduling';

/**
 * A RuntimeClass's handler is a DNS label (an empty one included); its overhead is held to a
 * container's limits (it is added to each pod's); the scheduling it gives the pods that use it is
 * a node selector and tolerations, as a pod's.
 */
export function validateRuntimeClass(object: KubeObject): FieldError[] {
  const handler = typeof object.handler === 'string' ? object.handler : '';
  const errors = isDNS1123Label(handler).map((message) => invalid(FieldPath.root('handler'), handler, message));
  const overhead = object.overhead as { podFixed?: Record<string, unknown> | null } | null | undefined;
  if (overhead != null)
    errors.push(
      ...validateResourceRequirements({ limits: overhead.podFixed ?? {} }, FieldPath.root('overhead'), {
        checkName: validateContainerResourceName,
        allowIndivisibleHugePages: false,
      }),
    );
  const scheduling = object.scheduling as Scheduling | null | undefined;
  if (scheduling != null) errors.push(...validateScheduling(scheduling, FieldPath.root('scheduling')));
  return errors;
}

interface Scheduling {
  nodeSelector?: Record<string, string> | null;
  tolerations?: Toleration[] | null;
}

/**
 * The tolerations' own rules are reported a level deeper than the list (`tolerations.tolerations[0]`),
 * as the reference does; a repeated toleration (the same but for its tolerationSeconds) is named
 * as its internal Go struct.
 */
function validateScheduling(scheduling: Scheduling, path: FieldPath): FieldError[] {
  const errors =
    scheduling.nodeSelector == null ? [] : validateLabels(scheduling.nodeSelector, path.child('nodeSelector'));
  const tolerations = scheduling.tolerations ?? [];
  const tolerationsPath = path.child('tolerations');
  errors.push(...validateTolerations(tolerations, tolerationsPath.child('tolerations')));
  const seen = new Set<string>();
  tolerations.forEach((toleration, i) => {
    const identity = tolerationIdentity(toleration);
    if (seen.has(identity)) errors.push(duplicate(tolerationsPath.index(i), goToleration(toleration)));
    seen.add(identity);
  });
  return errors;
}

function goToleration(toleration: Toleration): object {
  return {
    Key: toleration.key ?? '',
    Operator: toleration.operator ?? '',
    Value: toleration.value ?? '',
    Effect: toleration.effect ?? '',
    TolerationSeconds: toleration.tolerationSeconds ?? null,
  };
}

/** The handler a RuntimeClass names is fixed once made (the reference's 422). */
export function validateRuntimeClassUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  return immutable(FieldPath.root('handler'), object.handler ?? '', old.handler ?? '');
}
