/**
 * A pod spec's pod-level resources (`spec.resources`) against its containers', as the
 * reference's validatePodResourceConsistency judges them after their own rules: a pod-level
 * request no lower than what the containers request at once, a pod-level huge page limit no
 * lower than what they are limited to at once, and no regular container's limit above the pod's.
 * The last is reported at `resources.containers[<i>][<name>].limits`, as the reference writes it.
 */
import { containerAmounts, containerTotals, type Totals } from '../registry/kinds/container-resource-totals';
import { parseQuantity } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import { invalid, type FieldPath } from '../status/field-errors';
import { isHugePages } from './resource-names';

type Json = Record<string, unknown>;

interface PodLevelResources {
  requests?: Record<string, unknown>;
  limits?: Record<string, unknown>;
}

/** Each of `totals` that the pod's `list` names and that is above the pod's amount, with the pod's text. */
function* exceeding(totals: Totals, list: Record<string, unknown> | undefined) {
  for (const [name, total] of totals) {
    const podText = list?.[name];
    const pod = podText === undefined ? undefined : parseQuantity(String(podText));
    if (pod !== undefined && total.value.compareTo(pod) > 0) yield { name, total, podText: String(podText) };
  }
}

export function podResourceConsistencyErrors(spec: Json, resources: PodLevelResources, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  for (const { name, total, podText } of exceeding(containerTotals(spec, 'requests'), resources.requests))
    errors.push(
      invalid(
        path.child('requests').key(name),
        podText,
        `must be greater than or equal to aggregate container requests of ${total.text}`,
      ),
    );
  const hugePageLimits: Totals = new Map([...containerTotals(spec, 'limits')].filter(([name]) => isHugePages(name)));
  for (const { name, total, podText } of exceeding(hugePageLimits, resources.limits))
    errors.push(
      invalid(
        path.child('limits').key(name),
        podText,
        `must be greater than or equal to aggregate container limits of ${total.text}`,
      ),
    );
  const containers = Array.isArray(spec.containers) ? (spec.containers as Json[]) : [];
  containers.forEach((container, i) => {
    for (const { name, total, podText } of exceeding(containerAmounts(container, 'limits'), resources.limits))
      errors.push(
        invalid(
          path.child('containers').index(i).key(name).child('limits'),
          total.text,
          `must be less than or equal to pod limits of ${podText}`,
        ),
      );
  });
  return errors;
}
