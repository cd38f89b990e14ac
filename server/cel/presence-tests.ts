/**
 * `has()` over any operand, as cel-go allows: `has(self.items[0].name)`, `has({}.a)`,
 * `has(f().x)`. The engine's macro accepts only a chain of selects that starts at a variable
 * and reports "has() invalid argument" for the rest. Its evaluation needs no such root: it
 * evaluates the chain's last node and tests the selects over it. So for a chain that starts
 * elsewhere, capstan type-checks the root itself and gives the macro its chain; a chain that
 * starts at a variable stays with the engine.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { treeNodes } from './instrumentation';

interface Node {
  readonly op: string;
  readonly args: unknown;
  readonly meta: { readonly macro?: unknown };
}
interface Checker {
  check(node: Node, ctx: unknown): unknown;
  getType(name: string): unknown;
}
/** The engine's descriptor of a `has()` call (its macro), as far as this pass uses it. */
interface PresenceMacro {
  readonly args: Node[];
  macroHasProps?: Node[];
  typeCheck(checker: Checker, macro: PresenceMacro, ctx: unknown): unknown;
}

const isSelect = (node: Node): boolean => node.op === '.' || node.op === '.?';

/** The selects of `has()`'s argument, outermost first, then the operand they start from. */
function selectChain(argument: Node): Node[] {
  const chain: Node[] = [];
  let node = argument;
  while (isSelect(node)) {
    chain.push(node);
    node = (node.args as Node[])[0];
  }
  chain.push(node);
  return chain;
}

/** Lets every `has()` of the tree under `root` test a select chain that starts at any operand. */
export function widenPresenceTests(root: ASTNode): void {
  for (const node of treeNodes(root as unknown as Parameters<typeof treeNodes>[0]) as unknown as Node[]) {
    if (node.op !== 'call' || (node.args as unknown[])[0] !== 'has') continue;
    const macro = node.meta.macro as PresenceMacro | undefined;
    if (macro === undefined || !isSelect(macro.args[0])) continue;
    const chain = selectChain(macro.args[0]);
    if (chain[chain.length - 1].op === 'id') continue;
    macro.typeCheck = (checker, self, ctx) => {
      checker.check(chain[chain.length - 1], ctx);
      self.macroHasProps = chain;
      return checker.getType('bool');
    };
  }
}
