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
import { buildStrategy, RESET_OBJECT_META_FOR_STATUS } from '../registry/strategy';
import type { WriteContext } from '../registry/types';
import { semanticEqual } from '../validation/semantic-equality';
import { validatePodResize } from '../validation/pod-resize';
import { partialWriteHandlers } from './partial-write';

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

/** The stored containers with the resizable fields the write sends, or the sent ones where a name moved. */
function resizedContainers(sent: Container[] | undefined, stored: Container[] | undefined): Container[] | undefined {
  if (sent === undefined || sent.length === 0) return sent;
  if (sent.some((container, i) => container.name !== stored?.[i]?.name)) return sent;
  return sent.map((container, i) => {
    const next: Container = { ...stored![i] };
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
      const containers = resizedContainers(listOf(object, list), listOf(old, list));
      if (containers === undefined) delete spec[list];
      else spec[list] = containers;
    }
    object.spec = spec;
    if (old.status === undefined) delete object.status;
    else object.status = copyJson(old.status);
    for (const key of RESET_OBJECT_META_FOR_STATUS) {
      if (old.metadata[key] === undefined) delete object.metadata[key];
      else object.metadata[key] = copyJson(old.metadata[key]);
    }
  }
  dropDisabledPodFields(object, old, context.featureEnabled);
  if (!semanticEqual('core.PodSpec', object.spec, old.spec))
    object.metadata.generation = (object.metadata.generation ?? 0) + 1;
}

export const resizeHandlers = partialWriteHandlers((_base, scope) => {
  // The generic checks of the metadata and the pod's own passes over it (as its update runs
  // them), with the resize's rules in place of the pod's update rules. The reference makes those
  // passes inside its resize rules, so a pod it cannot resize at all drops their errors; they
  // stay here, which only a write that also adds or removes a container can tell, as only its
  // metadata is not reset.
  const { validateUpdate } = buildStrategy(
    { namespaced: scope.type.namespaced, nameRule: scope.type.nameRule, hasStatus: true },
    { updatePasses: ['update', 'create'], validateUpdate: validatePodResize },
  );
  return { prepareForStatusUpdate: keepOnlyResize, validateStatusUpdate: validateUpdate };
});
