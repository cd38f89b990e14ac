/**
 * Removal of fields an applier gave up: a field, list item or value the applier's previous
 * apply set and its new one does not is removed from the object when no manager owns it or
 * anything below it. A list item's key fields stay while the item stays. A free-form map or a
 * list left empty by a removal goes too, as Go's `omitempty` drops them when the reference
 * serializes the object, and so does a struct the reference holds by pointer.
 */
import { comparePaths, type FieldPath, type PathSet } from '../fieldmanager/path-set';
import { isObject } from '../json/value';
import { itemElement } from './list-items';
import { fieldNode, isPointerField, itemNode, listMapKeysOf, listTypeOf, type TypedNode } from './schema-node';

export function removeReleasedFields(options: {
  /** Changed in place. */
  readonly object: Record<string, unknown>;
  readonly released: PathSet;
  /** Everything some manager (the applier included) owns after this apply. */
  readonly owned: PathSet;
  readonly schema: TypedNode | undefined;
}): void {
  const { object, owned, schema } = options;
  // Deepest first, so a container is judged after what was under it.
  const candidates = options.released.paths().sort((a, b) => b.length - a.length || comparePaths(a, b));
  for (const path of candidates) {
    if (owned.has(path) || owned.hasBelow(path)) continue;
    removeAt(object, path, schema);
  }
}

interface Step {
  readonly container: Record<string, unknown> | unknown[];
  readonly at: string | number;
  readonly schema: TypedNode | undefined;
  /** Schema of the container itself. */
  readonly containerSchema: TypedNode | undefined;
}

function removeAt(root: Record<string, unknown>, path: FieldPath, rootSchema: TypedNode | undefined): void {
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
  if (last === undefined || isKeyOfKeptItem(steps)) return;
  deleteStep(last);
  // Containers emptied by the removal, from the innermost outwards.
  for (let i = steps.length - 2; i >= 0; i--) {
    const holder = steps[i];
    const emptied = steps[i + 1].container;
    const isEmpty = Array.isArray(emptied) ? emptied.length === 0 : Object.keys(emptied).length === 0;
    if (!isEmpty || !wasDroppable(holder)) return;
    deleteStep(holder);
  }
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
