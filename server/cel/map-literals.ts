/**
 * Map literals as cel-go builds them. The engine builds every map literal as a plain object, so
 * the keys of `{6: 'six'}` become strings (a comprehension over it then meets a string where the
 * checker promised an int), a repeated key silently keeps its last value, and `null` is accepted
 * as a key (while `'__proto__'` is dropped). Here a literal becomes a Map, as values from JSON
 * are (values.ts), keyed by the values themselves; a repeated key is an error, and so is a key
 * of a type CEL maps cannot have.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { UnsignedInt } from './engine-values';
import { treeNodes } from './instrumentation';
import { CelFunctionError } from './libraries/library';

interface Evaluator {
  run(node: unknown, ctx: unknown): unknown;
}
interface Node {
  readonly op: string;
  readonly args: unknown;
  setMeta(key: string, value: unknown): Node;
}

function isMapKey(key: unknown): boolean {
  return typeof key === 'string' || typeof key === 'bigint' || typeof key === 'boolean' || key instanceof UnsignedInt;
}

/** The same key as cel-go sees it: a uint by its value (two `1u` are one key). */
const identity = (key: unknown): unknown => (key instanceof UnsignedInt ? `uint:${key.value}` : key);

function evaluateMapLiteral(ev: Evaluator, node: Node, ctx: unknown): Map<unknown, unknown> {
  const map = new Map<unknown, unknown>();
  const seen = new Set<unknown>();
  for (const [keyNode, valueNode] of node.args as Array<[unknown, unknown]>) {
    const key = ev.run(keyNode, ctx);
    if (!isMapKey(key)) throw new CelFunctionError('unsupported map key type');
    const id = identity(key);
    if (seen.has(id)) throw new CelFunctionError(`Failed with repeated key: ${String(key)}`);
    seen.add(id);
    map.set(key, ev.run(valueNode, ctx));
  }
  return map;
}

/** Makes every map literal of the checked tree under `root` evaluate as cel-go's. */
export function buildMapLiteralsAsCelGo(root: ASTNode): void {
  for (const node of treeNodes(root as unknown as Parameters<typeof treeNodes>[0]) as unknown as Node[]) {
    if (node.op === 'map' && (node.args as unknown[]).length > 0) node.setMeta('evaluate', evaluateMapLiteral);
  }
}
