/**
 * Type-checking and evaluation of message constructions (`Name{field: value}`; message-syntax.ts
 * finds them): the name must resolve to a type the environment offers, each field must be one
 * of the type's, and each value assignable to the field's type, with cel-go's messages at
 * cel-go's positions (the `{` for the type, the `:` for a field, the value for a `?` field
 * given no optional). Each evaluation builds the type's value from the fields set.
 */
import { Optional, type ASTNode } from '@marcbachmann/cel-js';
import { referenceTypeName } from './compile-errors';
import { treeNodes } from './instrumentation';
import { CelFunctionError } from './libraries/library';
import type { MessageSite } from './message-syntax';
import type { MessageTypeResolver } from './message-types';
import type { CelValue } from './values';

/** The name of construction nodes in the tree (priced by runtime-cost.ts and estimated-cost.ts). */
export const CONSTRUCTION_OP = 'message';

/** A construction node's arguments: the type name, then per field its name, value node, `?` and `:` offset. */
export type ConstructionArgs = [
  typeName: string,
  fields: Array<[name: string, value: Node, optional: boolean, colon: number]>,
];

/** The engine's node and checker as far as constructions use them (their published types omit these members). */
interface Node {
  op: string;
  args: unknown;
  readonly start: number;
  evaluate(ev: unknown, node: Node, ctx: unknown): unknown;
  setMeta(key: string, value: unknown): Node;
}
interface CheckedType {
  readonly kind: string;
  readonly name: string;
  readonly valueType?: CheckedType;
  matches(other: CheckedType): boolean;
}
interface Checker {
  check(node: Node, ctx: unknown): CheckedType;
  getType(name: string): CheckedType;
  createError(options: { code: string; message: string; range?: { start: number; end: number } }): Error;
  createError(code: string, message: string, node: Node): Error;
}

/** A type as cel-go's checker prints it in these messages (`null`, where overload errors say `null_type`). */
function typeName(type: string): string {
  return type === 'null' ? 'null' : referenceTypeName(type);
}

function checkConstruction(resolve: MessageTypeResolver, chk: Checker, node: Node, ctx: unknown): CheckedType {
  const [name, fields] = node.args as ConstructionArgs;
  const type = resolve(name);
  if (type === undefined) {
    throw chk.createError('undeclared_reference', `undeclared reference to '${name}' (in container '')`, node);
  }
  for (const [field, value, optional, colon] of fields) {
    let valueType = chk.check(value, ctx);
    if (optional) {
      if (valueType.kind === 'optional') valueType = valueType.valueType!;
      else if (valueType.kind !== 'dyn') {
        const expected = referenceTypeName(`optional<${valueType.name}>`);
        throw chk.createError(
          'type_mismatch',
          `expected type '${expected}' but found '${typeName(valueType.name)}'`,
          value,
        );
      }
    }
    const fieldType = type.fieldType(field);
    const at = { start: colon, end: colon + 1 };
    if (fieldType === undefined) {
      throw chk.createError({ code: 'undefined_field', message: `undefined field '${field}'`, range: at });
    }
    if (fieldType === '' || !chk.getType(fieldType).matches(valueType)) {
      const expected = fieldType === '' ? '' : typeName(fieldType);
      throw chk.createError({
        code: 'field_type_mismatch',
        message: `expected type of field '${field}' is '${expected}' but provided type is '${typeName(valueType.name)}'`,
        range: at,
      });
    }
  }
  return chk.getType(name);
}

function evaluateConstruction(resolve: MessageTypeResolver, ev: unknown, node: Node, ctx: unknown): object {
  const [typeName, fields] = node.args as ConstructionArgs;
  const values = new Map<string, CelValue>();
  for (const [name, valueNode, optional] of fields) {
    const value = valueNode.evaluate(ev, valueNode, ctx) as CelValue;
    if (!optional) values.set(name, value);
    else if (!(value instanceof Optional)) {
      throw new CelFunctionError(`cannot initialize optional entry '${name}' from non-optional value ${String(value)}`);
    } else if (value.hasValue()) values.set(name, value.value() as CelValue);
  }
  return resolve(typeName)!.construct(values);
}

/**
 * Turns the map nodes that stand for the constructions at `sites` (by the offset of their `{`)
 * into construction nodes, checked and evaluated with the types `resolve` gives.
 */
export function markConstructions(
  root: ASTNode,
  sites: ReadonlyMap<number, MessageSite>,
  resolve: MessageTypeResolver,
): void {
  if (sites.size === 0) return;
  const check = (chk: Checker, node: Node, ctx: unknown) => checkConstruction(resolve, chk, node, ctx);
  const evaluate = (ev: unknown, node: Node, ctx: unknown) => evaluateConstruction(resolve, ev, node, ctx);
  for (const node of treeNodes(root as unknown as Parameters<typeof treeNodes>[0]) as unknown as Node[]) {
    const site = node.op === 'map' ? sites.get(node.start) : undefined;
    if (site === undefined) continue;
    const entries = node.args as Array<[Node, Node]>;
    node.args = [
      site.typeName,
      entries.map(([key, value]) => {
        const field = site.fields.get(key.start)!;
        return [key.args as string, value, field.optional, field.colon];
      }),
    ] satisfies ConstructionArgs;
    node.op = CONSTRUCTION_OP;
    // Evaluation is synchronous: no engine promise handling around the node.
    node.setMeta('check', check).setMeta('evaluate', evaluate).setMeta('async', false);
  }
}
