/**
 * Removal of fields an applier gave up: a field, list item or value the applier's previous
 * apply set and its new one does not is removed from the object when no manager owns it or
 * anything below it. A list item's key fields stay while the item stays. A free-form map or a
 * list left empty by a removal goes too, as Go's `omitempty` drops them when the reference
 * serializes the object, and so does a struct the reference holds by pointer. That happens in
 * two steps: the reference's structured merge leaves an emptied container null, its member in
 * place, and compares that with the live object (so whoever owns the container itself keeps
 * it); only its conversion to the Go type drops it afterwards.
 */
import { comparePaths, type FieldPath, type PathSet } from '../fieldmanager/path-set';
import { isEmptyContainer, isObject } from '../json/value';
import { itemElement } from './list-items';
import { fieldNode, isPointerField, itemNode, listMapKeysOf, listTypeOf, type TypedNode } from './schema-node';

/**
 * Removes the released fields no one owns, leaving each container a removal emptied null.
 * Returns what settles those containers as the Go type holds them (gone, or empty): call it
 * once the object has been compared with the live one.
 */
export function removeReleasedFields(options: {
  /** Changed in place. */
  readonly object: Record<string, unknown>;
  readonly released: PathSet;
  /** Everything some manager (the applier included) owns after this apply. */
  readonly owned: PathSet;
  readonly schema: TypedNode | undefined;
}): () => void {
  const { object, owned, schema } = options;
  // Deepest first, so a container is judged after what was under it.
  const candidates = options.released.paths().sort((a, b) => b.length - a.length || comparePaths(a, b));
  const settlers: (() => void)[] = [];
  for (const path of candidates) {
    if (owned.has(path) || owned.hasBelow(path)) continue;
    const settle = removeAt(object, path, schema);
    if (settle !== undefined) settlers.push(settle);
  }
  // Outermost last, so a container is settled after what was emptied under it.
  return () => {
    for (const settle of settlers) settle();
  };
}

interface Step {
  readonly container: Record<string, unknown> | unknown[];
  readonly at: string | number;
  readonly schema: TypedNode | undefined;
  /** Schema of the container itself. */
  readonly containerSchema: TypedNode | undefined;
}

/** Removes the field at `path`; returns what settles the container it emptied, if it emptied one. */
function removeAt(
  root: Record<string, unknown>,
  path: FieldPath,
  rootSchema: TypedNode | undefined,
): (() => void) | undefined {
  const steps: Step[] = [];
  let value: unknown = root;
  let schema = rootSchema;
  for (const element of path) {
    if (element.startsWith('f:')) {
      if (!isObject(value)) return;
      const name = element.slice(2);
      if (!(name in value)) return;
      const child = fieldNode(schema, name);
      steps.push({ container: value, at: name, schema: child, containerSchema: schema });
      value = value[name];
      schema = child;
      continue;
    }
    if (!Array.isArray(value)) return;
    const list = value;
    const index = list.findIndex((item) => itemElement(item, schema) === element);
    if (index < 0) return;
    const items = itemNode(schema);
    steps.push({ container: list, at: index, schema: items, containerSchema: schema });
    value = list[index];
    schema = items;
  }
  const last = steps[steps.length - 1];
  if (last === undefined || isKeyOfKeptItem(steps)) return undefined;
  deleteStep(last);
  const innermost = steps.length - 2;
  if (innermost < 0 || !isEmptyContainer(last.container)) return undefined;
  const emptied = last.container;
  setStep(steps[innermost], null);
  return () => {
    setStep(steps[innermost], emptied);
    // Containers emptied by the removal, from the innermost outwards.
    for (let i = innermost; i >= 0; i--) {
      if (!isEmptyContainer(steps[i + 1].container) || !wasDroppable(steps[i])) return;
      deleteStep(steps[i]);
    }
  };
}

function setStep(step: Step, value: unknown): void {
  if (Array.isArray(step.container)) step.container[step.at as number] = value;
  else step.container[step.at as string] = value;
}

/** A key field (`name` of a container) of a list item: the item stays, so its key does. */
function isKeyOfKeptItem(steps: readonly Step[]): boolean {
  if (steps.length < 2) return false;
  const last = steps[steps.length - 1];
  const parent = steps[steps.length - 2];
  if (typeof parent.at !== 'number' || typeof last.at !== 'string') return false;
  return listTypeOf(parent.containerSchema) === 'map' && listMapKeysOf(parent.containerSchema).includes(last.at);
}

function wasDroppable(step: Step): boolean {
  const value = Array.isArray(step.container) ? step.container[step.at as number] : step.container[step.at as string];
  if (Array.isArray(value)) return true;
  if (!isObject(value) || step.schema === undefined) return false;
  // A map with a value schema (labels, annotations) rather than declared properties, or a struct
  // the reference holds by pointer (`status.typeChecking`): its structured merge leaves an
  // emptied map null, which such a field omits, where a struct held by value prints as `{}`.
  return step.schema.node.properties === undefined || isPointerField(step.schema);
}

function deleteStep(step: Step): void {
  if (Array.isArray(step.container)) step.container.splice(step.at as number, 1);
  else delete step.container[step.at as string];
}
