/**
 * What the reference's handler reports when it decodes a patch document strictly (field
 * validation Strict or Warn), ahead of the patched object's own unknown and repeated fields. A
 * JSON Patch is decoded as a list of operations of four case-sensitive members (`op`, `path`,
 * `from`, `value`): any other member is unknown, a repeated member or a key repeated inside a
 * value is a duplicate, each reported as the "json patch" decoding's. A merge or strategic patch
 * is decoded as a map, where only repeated keys can be reported. Go's decoder reports each
 * problem once, in the order it meets them, and at most 100.
 */
import { goQuote } from '../../api/go-quote';
import { findDuplicateKeys, formatPath } from '../validation/decode';

type JsoncParser = typeof import('jsonc-parser');
let jsoncParser: JsoncParser | undefined;

const OPERATION_MEMBERS = new Set(['op', 'path', 'from', 'value']);
const MAX_STRICT_ERRORS = 100;

function firstOnes(problems: Iterable<string>): string[] {
  return [...new Set(problems)].slice(0, MAX_STRICT_ERRORS);
}

/** The strict decoding problems of a merge or strategic patch: its repeated keys. */
export function mapPatchStrictProblems(text: string): string[] {
  return firstOnes(findDuplicateKeys(text).map((path) => `duplicate field ${goQuote(path)}`));
}

/** The strict decoding problems of a JSON Patch: unknown operation members and repeated keys. */
export function jsonPatchStrictProblems(text: string): string[] {
  // Loaded with the first strictly decoded JSON Patch: most servers never see one.
  jsoncParser ??= require('jsonc-parser') as JsoncParser;
  const problems: string[] = [];
  const seen: Set<string>[] = [];
  jsoncParser.visit(text, {
    onObjectBegin: () => {
      seen.push(new Set());
    },
    onObjectEnd: () => {
      seen.pop();
    },
    onObjectProperty: (property, _offset, _length, _line, _column, pathSupplier) => {
      const path = pathSupplier();
      const keys = seen[seen.length - 1];
      const repeated = keys.has(property);
      keys.add(property);
      const [index, member] = path;
      if (typeof index !== 'number') return;
      // The decoder skips an unknown member's value without looking into it.
      if (path.length > 1 && !OPERATION_MEMBERS.has(String(member))) return;
      const at = formatPath([...path, property]);
      if (path.length === 1 && !OPERATION_MEMBERS.has(property))
        problems.push(`json patch unknown field ${goQuote(at)}`);
      else if (repeated) problems.push(`json patch duplicate field ${goQuote(at)}`);
    },
  });
  return firstOnes(problems);
}
