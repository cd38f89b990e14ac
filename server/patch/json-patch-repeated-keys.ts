/**
 * Keys a JSON Patch's values repeat, as they live on in the reference's patched document. Its
 * json-patch library (evanphx v4) inserts an operation's value as the bytes it was sent in, and
 * decodes bytes only when an operation goes into them: then the last of a repeated key wins and
 * the members stay bytes in turn. A test decodes what it compares whole; a copy copies bytes.
 * The handler decodes the patched bytes strictly, so a key repeated in what no operation opened
 * is reported as a duplicate field at its place in the result, and the 422 quotes it repeated.
 *
 * capstan applies a patch to parsed values (where the last key already won), so this keeps the
 * bytes beside them: the text of each inserted value that repeats a key, by the value it became,
 * until an operation opens it.
 */
import type { Node as JsonNode } from 'jsonc-parser';
import type { InsertionObserver, Operation } from './json-patch';
import { findDuplicateKeys, keyPathsInOrder, textRepeatsKeys, type RepeatedKeys } from '../validation/decode';
import { isObject } from '../json/value';

type JsoncParser = typeof import('jsonc-parser');
let jsoncParser: JsoncParser | undefined;

export class RepeatedKeyTexts implements InsertionObserver {
  private readonly texts = new WeakMap<object, string>();

  private constructor(private readonly valueTexts: ReadonlyMap<Operation, string>) {}

  /**
   * The texts of the operations' values that repeat a key, or undefined where none does (the
   * common case, told apart by counting members without a second parse).
   */
  static of(text: string, operations: readonly Operation[]): RepeatedKeyTexts | undefined {
    if (!textRepeatsKeys(text, operations)) return undefined;
    const parser = (jsoncParser ??= require('jsonc-parser') as JsoncParser);
    const valueTexts = new Map<Operation, string>();
    parser.parseTree(text)?.children?.forEach((operation, index) => {
      // Decoded into a map, an operation keeps the last of a repeated member.
      const value = operation.children?.findLast((member) => member.children?.[0]?.value === 'value')?.children?.[1];
      if (value === undefined || operations[index] === undefined) return;
      const valueText = textOf(text, value);
      if (findDuplicateKeys(valueText).length > 0) valueTexts.set(operations[index], valueText);
    });
    return valueTexts.size === 0 ? undefined : new RepeatedKeyTexts(valueTexts);
  }

  /** The bytes `value` is kept as, where it repeats a key no operation opened. */
  readonly keptText = (value: object): string | undefined => this.texts.get(value);

  inserted(operation: Operation, value: unknown): void {
    const text = this.valueTexts.get(operation);
    if (text !== undefined && typeof value === 'object' && value !== null) this.texts.set(value, text);
  }

  opened(container: unknown): void {
    if (typeof container !== 'object' || container === null) return;
    const text = this.texts.get(container);
    if (text === undefined) return;
    this.texts.delete(container);
    const parser = (jsoncParser ??= require('jsonc-parser') as JsoncParser);
    const node = parser.parseTree(text);
    const members: [unknown, JsonNode][] = [];
    if (node?.type === 'array' && Array.isArray(container))
      node.children?.forEach((item, index) => members.push([container[index], item]));
    else if (node?.type === 'object' && isObject(container)) {
      // The last of a repeated key is the one decoded.
      const last = new Map<string, JsonNode>();
      for (const member of node.children ?? []) {
        const [key, value] = member.children ?? [];
        if (key !== undefined && value !== undefined) last.set(key.value as string, value);
      }
      for (const [key, value] of last) members.push([container[key], value]);
    }
    for (const [member, memberNode] of members) {
      if (typeof member !== 'object' || member === null) continue;
      const memberText = textOf(text, memberNode);
      if (findDuplicateKeys(memberText).length > 0) this.texts.set(member, memberText);
    }
  }

  compared(value: unknown): void {
    if (typeof value !== 'object' || value === null) return;
    this.texts.delete(value);
    for (const member of Object.values(value)) this.compared(member);
  }

  copied(source: unknown, copy: unknown): void {
    if (typeof source !== 'object' || source === null || typeof copy !== 'object' || copy === null) return;
    const text = this.texts.get(source);
    if (text !== undefined) this.texts.set(copy, text);
    for (const [key, member] of Object.entries(source)) this.copied(member, (copy as Record<string, unknown>)[key]);
  }
}

/** The repeated keys of the patched document's bytes, found as the handler's strict decoding finds them. */
export function repeatedKeysOf(patchedText: string): RepeatedKeys {
  return { fieldPaths: findDuplicateKeys(patchedText), yamlLines: [], keysInOrder: () => keyPathsInOrder(patchedText) };
}

function textOf(text: string, node: JsonNode): string {
  return text.slice(node.offset, node.offset + node.length);
}
