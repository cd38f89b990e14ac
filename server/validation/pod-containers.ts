/**
 * A pod spec's containers of every kind, in the order the reference visits them
 * (VisitContainersWithPath: init, regular, ephemeral), for the rules and warnings that judge each
 * container alike wherever it sits.
 */
import type { FieldPath } from '../status/field-errors';

export interface ContainerLists<C> {
  initContainers?: C[];
  containers?: C[];
  ephemeralContainers?: C[];
}

/** Every container of the spec with its path. */
export function containersOf<C>(spec: ContainerLists<C>, specPath: FieldPath): [C, FieldPath][] {
  return (['initContainers', 'containers', 'ephemeralContainers'] as const).flatMap((list) =>
    (spec[list] ?? []).map((container, i): [C, FieldPath] => [container, specPath.child(list).index(i)]),
  );
}
