/**
 * `pods/resize`: in-place changes of the containers' resources. A write through it keeps the
 * stored pod but for the resources and resize policies of its containers and init containers,
 * matched by index, and bumps metadata.generation when the spec changed; the rules it is held to
 * are server/validation/pod-resize.ts. A write that adds, removes, renames or reorders a
 * container is kept whole, as the reference keeps it, so that those rules refuse it.
 */
import type { KubeObject } from '../../api/objects';
import { copyJson } from '../json/value';
import { dropDisabledPodFields } from '../registry/kinds/pod-gated-fields';
import { buildStrategy } from '../registry/strategy';
import type { WriteContext } from '../registry/types';
import { podResizeRefusal, validatePodResize } from '../validation/pod-resize';
import { partialWriteHandlers } from './partial-write';
import { countPodGeneration, keepStoredStatusAndMetadata } from './pod-partial-write';

type Container = Record<string, unknown> & { readonly name?: string };
type ContainerList = 'containers' | 'initContainers';
const RESIZABLE_FIELDS = ['resources', 'resizePolicy'] as const;
const CONTAINER_LISTS: readonly ContainerList[] = ['containers', 'initContainers'];

function specOf(pod: KubeObject): Record<string, unknown> {
  return (pod.spec as Record<string, unknown> | undefined) ?? {};
}

function listOf(pod: KubeObject, list: ContainerList): Container[] | undefined {
  return (specOf(pod)[list] as Container[] | null | undefined) ?? undefined;
}

/**
 * The stored containers (as many as sent) with the resizable fields the write sends, or the sent
 * ones where a name moved; none for an empty list, which Go writes as none.
 */
function resizedContainers(sent: Container[] | undefined, stored: Container[]): Container[] | undefined {
  if (sent === undefined || sent.length === 0) return undefined;
  if (sent.some((container, i) => container.name !== stored[i].name)) return sent;
  return sent.map((container, i) => {
    const next: Container = { ...stored[i] };
    for (const field of RESIZABLE_FIELDS) {
      if (container[field] === undefined) delete next[field];
      else next[field] = container[field];
    }
    return next;
  });
}

function keepOnlyResize(object: KubeObject, old: KubeObject, context: WriteContext): void {
  const sameCount = CONTAINER_LISTS.every(
    (list) => (listOf(object, list)?.length ?? 0) === (listOf(old, list)?.length ?? 0),
  );
  if (sameCount) {
    const spec = copyJson(specOf(old));
    for (const list of CONTAINER_LISTS) {
      const containers = resizedContainers(listOf(object, list), listOf(old, list) ?? []);
      if (containers === undefined) delete spec[list];
      else spec[list] = containers;
    }
    object.spec = spec;
    keepStoredStatusAndMetadata(object, old);
  }
  dropDisabledPodFields(object, old, context.featureEnabled);
  countPodGeneration(object, old);
}

// The resize's store keeps the pod's own reset fields: an apply through it may own all but status.
export const resizeHandlers = partialWriteHandlers((_base, scope) => {
  const facts = { namespaced: scope.type.namespaced, nameRule: scope.type.nameRule, hasStatus: true };
  // With no passes and no rules of its own, a strategy's update validation is the generic check
  // of the metadata alone.
  const genericChecks = buildStrategy(facts, { updatePasses: [] }).validateUpdate;
  // The pod's own passes over the metadata (as its update runs them) join the resize's rules,
  // and, as in the reference, a pod that cannot be resized drops them for its one error.
  const resizeChecks = buildStrategy(facts, {
    updatePasses: ['update', 'create'],
    validateUpdate: validatePodResize,
  }).validateUpdate;
  return {
    prepareForStatusUpdate: keepOnlyResize,
    validateStatusUpdate: (object, old, context) => {
      const refusal = podResizeRefusal(object, old);
      return refusal === undefined
        ? resizeChecks(object, old, context)
        : [...genericChecks(object, old, context), refusal];
    },
  };
}, 'all-but-status');
