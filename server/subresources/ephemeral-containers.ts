/**
 * `pods/ephemeralcontainers`: how `kubectl debug` adds a container to a running pod. A write
 * through it changes spec.ephemeralContainers and nothing else of the pod (the rest of spec, the
 * status and the metadata a status write keeps stay as stored), and raises generation when it
 * changes them; ephemeral containers once added may be neither changed nor removed, with the
 * reference's messages.
 */
import type { KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import type { FieldError } from '../registry/types';
import { partialWriteHandlers } from './partial-write';
import { countPodGeneration, keepStoredStatusAndMetadata } from './pod-partial-write';
import { dropDisabledPodFields } from '../registry/kinds/pod-gated-fields';
import { isMirrorPod } from '../registry/kinds/mirror-pod';
import { FieldPath, forbidden } from '../status/field-errors';
import { internalDiff } from '../validation/internal-json';
import { semanticEqual } from '../validation/semantic-equality';

interface EphemeralContainer {
  readonly name?: string;
  readonly [field: string]: unknown;
}

function ephemeralContainersOf(pod: KubeObject): EphemeralContainer[] | undefined {
  return (pod.spec as { ephemeralContainers?: EphemeralContainer[] } | undefined)?.ephemeralContainers;
}

/** The stored spec with the ephemeral containers the write sends. */
function keepAllButEphemeralContainers(object: KubeObject, old: KubeObject): void {
  const sent = ephemeralContainersOf(object);
  const spec = copyJson((old.spec as Record<string, unknown> | undefined) ?? {});
  if (sent === undefined || sent.length === 0) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = sent;
  object.spec = spec;
  keepStoredStatusAndMetadata(object, old);
}

export function validateEphemeralContainersUpdate(object: KubeObject, old: KubeObject): FieldError[] {
  const path = FieldPath.root('spec', 'ephemeralContainers');
  const next = new Map((ephemeralContainersOf(object) ?? []).map((container) => [container.name ?? '', container]));
  const errors: FieldError[] = [];
  for (const previous of ephemeralContainersOf(old) ?? []) {
    const name = previous.name ?? '';
    const current = next.get(name);
    if (current === undefined)
      errors.push(forbidden(path, `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!semanticEqual('core.EphemeralContainer', previous, current))
      errors.push(
        forbidden(
          path,
          `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n${internalDiff('core.EphemeralContainer', previous, current)}`,
        ),
      );
  }
  return errors;
}

export const ephemeralContainersHandlers = partialWriteHandlers(
  (base) => ({
    // A new ephemeral container loses the fields of gates that are off, as the pod's own writes do.
    prepareForStatusUpdate: (object, old, context) => {
      keepAllButEphemeralContainers(object, old);
      dropDisabledPodFields(object, old, context.featureEnabled);
      countPodGeneration(object, old);
    },
    // As the reference's ValidatePodEphemeralContainersUpdate: the pod as a whole first, then (for
    // any pod but a static one, which takes none) what became of the existing ephemeral containers.
    validateStatusUpdate: (object, old, context) => {
      // The pod's own update rules, which forbid spec changes, judge everything else.
      const oldWithSent: KubeObject = {
        ...old,
        spec: { ...((old.spec as object | undefined) ?? {}), ephemeralContainers: ephemeralContainersOf(object) },
      };
      const podErrors = base.validateUpdate?.(object, oldWithSent, context) ?? [];
      if (isMirrorPod(old))
        return [forbidden(FieldPath.wholeObject(), 'static pods do not support ephemeral containers')];
      return [...podErrors, ...validateEphemeralContainersUpdate(object, old)];
    },
    // Its store keeps the pod's own reset fields: an apply through it may own all but status.
  }),
  'all-but-status',
);
