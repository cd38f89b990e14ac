/**
 * Fields behind a feature gate, as the reference's `dropDisabledFields` functions treat them:
 * while a gate is off, a write loses what it put in the gate's fields, unless the stored object
 * already uses them (an object written while the gate was on keeps them through unrelated
 * updates, and the gate can be turned off without breaking the objects that use it).
 */
import type { KubeObject } from '../../../api/objects';
import { isObject, valueAtPath } from '../../json/value';
import type { Json } from '../defaults/fill';
import type { FeatureEnabled } from '../types';

export interface GatedFields {
  /** The gates that must all be on for a new use of the fields to be kept. */
  readonly gates: readonly string[];
  /** Whether an object uses the fields (the stored object, on update). */
  readonly inUse: (object: KubeObject) => boolean;
  /** Removes the fields from the object written (may mutate it). */
  readonly drop: (object: KubeObject) => void;
}

/** A kind's `dropDisabledFields`: every family's rule, in the reference's order. */
export function dropDisabledFieldsOf(
  families: readonly GatedFields[],
): (object: KubeObject, old: KubeObject | undefined, featureEnabled: FeatureEnabled) => void {
  return (object, old, featureEnabled) => {
    for (const family of families) {
      if (family.gates.every(featureEnabled)) continue;
      if (old !== undefined && family.inUse(old)) continue;
      family.drop(object);
    }
  };
}

/**
 * The family of one optional field at a dotted path (`spec.managedBy`), the commonest shape:
 * in use when set, dropped by removing it from the object that holds it.
 */
export function gatedField(gate: string, path: string): GatedFields {
  const at = path.lastIndexOf('.');
  const parentPath = path.slice(0, at);
  const name = path.slice(at + 1);
  return {
    gates: [gate],
    inUse: (object) => isSet(valueAtPath(object, path)),
    drop: (object) => {
      const parent = objectAt(object, parentPath);
      if (parent !== undefined) delete parent[name];
    },
  };
}

/** Whether a pointer field is set: Go's `!= nil`, where JSON null decodes to nil. */
export function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Whether a list field has items: Go's `len(x) > 0`. */
export function hasItems(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0;
}

/** The object at a dotted path, or undefined where the path holds none. */
export function objectAt(value: unknown, path: string): Json | undefined {
  const found = valueAtPath(value, path);
  return isObject(found) ? found : undefined;
}

/** The objects of the list at a dotted path (entries that are not objects are validation's to refuse). */
export function listAt(value: unknown, path: string): Json[] {
  const found = valueAtPath(value, path);
  return Array.isArray(found) ? found.filter(isObject) : [];
}
