/**
 * Field sets as sets of member paths, the form server-side apply reasons in: a path is a
 * member when a manager owns that exact field, list item or value. The FieldsV1 tree of
 * managedFields (server/fieldmanager/field-set.ts) is only the wire form of such a set: an
 * empty node or a `.` child marks a member, other nodes only lead to members. Conflicts and
 * removals need exact member intersection and differences, which the tree's subtree algebra
 * does not give, hence this form beside it.
 */
import { SELF, type FieldSet } from './field-set';

/** Path elements in FieldsV1 form: `f:spec`, `k:{"name":"web"}`, `v:"a"`, `i:0`. */
export type FieldPath = readonly string[];

const SEPARATOR = '\u0000';

function keyOf(path: FieldPath): string {
  return path.join(SEPARATOR);
}

export class PathSet {
  private readonly members = new Map<string, FieldPath>();
  /** Keys of every proper prefix of a member, built on first need. */
  private prefixes: Set<string> | undefined;

  constructor(paths: Iterable<FieldPath> = []) {
    for (const path of paths) this.add(path);
  }

  add(path: FieldPath): void {
    this.members.set(keyOf(path), path);
    this.prefixes = undefined;
  }

  has(path: FieldPath): boolean {
    return this.members.has(keyOf(path));
  }

  get size(): number {
    return this.members.size;
  }

  isEmpty(): boolean {
    return this.members.size === 0;
  }

  paths(): FieldPath[] {
    return [...this.members.values()];
  }

  /** True when some member lies strictly below `path`. */
  hasBelow(path: FieldPath): boolean {
    if (this.prefixes === undefined) {
      this.prefixes = new Set();
      for (const member of this.members.values()) {
        for (let length = 1; length < member.length; length++) this.prefixes.add(keyOf(member.slice(0, length)));
      }
    }
    return this.prefixes.has(keyOf(path));
  }

  union(other: PathSet): PathSet {
    return new PathSet([...this.members.values(), ...other.members.values()]);
  }

  minus(other: PathSet): PathSet {
    return new PathSet(this.paths().filter((path) => !other.has(path)));
  }

  intersect(other: PathSet): PathSet {
    return new PathSet(this.paths().filter((path) => other.has(path)));
  }

  /** Members not equal to or below any member of `other` (the reference's RecursiveDifference). */
  minusSubtrees(other: PathSet): PathSet {
    return new PathSet(this.paths().filter((path) => !path.some((_, i) => other.has(path.slice(0, i + 1)))));
  }

  equals(other: PathSet): boolean {
    return this.size === other.size && this.paths().every((path) => other.has(path));
  }
}

/** The members a FieldsV1 tree names. */
export function pathsOfFieldsV1(tree: FieldSet | undefined): PathSet {
  const out = new PathSet();
  const walk = (node: FieldSet, path: string[]) => {
    const keys = Object.keys(node);
    if (keys.length === 0 && path.length > 0) out.add(path);
    for (const key of keys) {
      if (key === SELF) out.add(path);
      else walk(node[key], [...path, key]);
    }
  };
  if (tree !== undefined) walk(tree, []);
  return out;
}

/** Kind rank of a path element, in the reference's order: fields, keys, values, indexes. */
function elementRank(element: string): number {
  return ['f:', 'k:', 'v:', 'i:'].indexOf(element.slice(0, 2));
}

export function compareElements(a: string, b: string): number {
  const byKind = elementRank(a) - elementRank(b);
  if (byKind !== 0) return byKind;
  if (a.startsWith('i:')) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

export function comparePaths(a: FieldPath, b: FieldPath): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareElements(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** The FieldsV1 tree of a set, children in the reference's order with `.` first. */
export function fieldsV1Of(set: PathSet): FieldSet {
  interface Node {
    member: boolean;
    children: Map<string, Node>;
  }
  const root: Node = { member: false, children: new Map() };
  for (const path of set.paths()) {
    let node = root;
    for (const element of path) {
      let child = node.children.get(element);
      if (child === undefined) {
        child = { member: false, children: new Map() };
        node.children.set(element, child);
      }
      node = child;
    }
    node.member = true;
  }
  const encode = (node: Node): FieldSet => {
    const out: FieldSet = {};
    if (node.member && node.children.size > 0) out[SELF] = {};
    for (const element of [...node.children.keys()].sort(compareElements))
      out[element] = encode(node.children.get(element)!);
    return out;
  };
  return encode(root);
}

/** The reference's printed form of a path: `.spec.containers[name="web"].image`. */
export function formatPath(path: FieldPath): string {
  return path
    .map((element) => {
      const body = element.slice(2);
      if (element.startsWith('f:')) return `.${body}`;
      if (element.startsWith('i:')) return `[${body}]`;
      if (element.startsWith('v:')) return `[=${formatValue(JSON.parse(body))}]`;
      const key = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(key)
        .map(([name, value]) => `${name}=${formatValue(value)}`)
        .join(',')}]`;
    })
    .join('');
}

/** Go's value.ToString: strings quoted, everything else as JSON. */
function formatValue(value: unknown): string {
  return JSON.stringify(value);
}
