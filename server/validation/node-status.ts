/**
 * What a Node's status may hold, as the reference's ValidateNodeResources and ValidateNodeUpdate
 * judge it: the amounts of capacity and allocatable (their names and huge page sizes are the
 * kubelet's, not checked), and no address reported twice.
 */
import { goJSONEscaped } from '../../api/go-quote';
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { duplicate, FieldPath, GoValue } from '../status/field-errors';
import { validateResourceQuantityValue } from './resource-requirements';

interface NodeStatus {
  capacity?: Record<string, unknown>;
  allocatable?: Record<string, unknown>;
  addresses?: { type?: string; address?: string }[];
}

function statusOf(node: KubeObject): NodeStatus {
  return typeof node.status === 'object' && node.status !== null ? (node.status as NodeStatus) : {};
}

/** Every amount of capacity, then of allocatable: never negative, whole where counted. */
export function validateNodeResources(node: KubeObject): FieldError[] {
  const status = statusOf(node);
  return (['capacity', 'allocatable'] as const).flatMap((list) =>
    Object.entries(status[list] ?? {}).flatMap(([name, amount]) =>
      validateResourceQuantityValue(name, amount, FieldPath.root('status', list, name)),
    ),
  );
}

/** Each repeat of an address of the same type after its first; the internal struct prints without json tags. */
export function duplicateNodeAddresses(node: KubeObject): FieldError[] {
  const seen = new Set<string>();
  return (statusOf(node).addresses ?? []).flatMap((address, i) => {
    const shown = JSON.stringify({ Type: address.type ?? '', Address: address.address ?? '' });
    if (!seen.has(shown)) {
      seen.add(shown);
      return [];
    }
    return [duplicate(FieldPath.root('status', 'addresses').index(i), new GoValue(goJSONEscaped(shown)))];
  });
}
