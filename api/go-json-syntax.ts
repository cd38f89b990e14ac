/**
 * Go's encoding/json words for a syntax error, and for a value of the wrong type: what clients
 * see where the reference decodes JSON with the standard library (a body's version and kind, a
 * list's continue token, an annotation, a docker configuration).
 */
import { goQuote } from './go-quote';

/**
 * Go's quoteChar: the byte at the error between single quotes, quoted as strconv.Quote quotes
 * it, but for the two quote marks. Go reads bytes: a character beyond ASCII stands there as its
 * first UTF-8 byte, which Go quotes as the rune of that value.
 */
function quoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(byte)).slice(1, -1)}'`;
}

/** Go's limit on nested objects and arrays before it gives up on a document. */
const MAX_NESTING_DEPTH = 10_000;

const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** What a step of the scanner does with a byte: the next state, or the error's context. */
type Step = State | { readonly context: string };
type State = (c: number) => Step;

/**
 * The syntax error Go's json.Unmarshal reports for `input` (its checkValid scan, which runs
 * before any decoding), or undefined when the text is valid JSON. The scan follows the states
 * of Go's encoding/json scanner byte by byte: the context of an error is the state it was in.
 */
export function goJSONSyntaxProblem(input: string | Buffer): string | undefined {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  // Whether each open container is an object (true) or an array; objects track key or value.
  const stack: boolean[] = [];
  let expectingKey = false;
  // Set once the top-level value is complete.
  const top = { ended: false };

  const fail = (context: string): Step => ({ context });
  const literal =
    (word: string, index: number, next: State): State =>
    (c) => {
      if (c !== word.charCodeAt(index))
        return fail(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(index))})`);
      return index + 1 === word.length ? next : literal(word, index + 1, next);
    };

  const endTop: State = (c) => (isSpace(c) ? endTop : fail('after top-level value'));
  const endValue: State = (c) => {
    if (stack.length === 0) {
      top.ended = true;
      return endTop(c);
    }
    if (isSpace(c)) return endValue;
    if (stack[stack.length - 1]) {
      if (expectingKey) {
        if (c !== 0x3a) return fail('after object key');
        expectingKey = false;
        return beginValue;
      }
      if (c === 0x2c) {
        expectingKey = true;
        return beginString;
      }
      if (c === 0x7d) return close();
      return fail('after object key:value pair');
    }
    if (c === 0x2c) return beginValue;
    if (c === 0x5d) return close();
    return fail('after array element');
  };
  const close = (): State => {
    stack.pop();
    expectingKey = false;
    return endValue;
  };
  const open = (object: boolean, next: State): Step => {
    if (stack.length >= MAX_NESTING_DEPTH) return fail('exceeded max depth');
    stack.push(object);
    expectingKey = object;
    return next;
  };
  const inString: State = (c) => {
    if (c === 0x22) return endValue;
    if (c === 0x5c) return inEscape;
    if (c < 0x20) return fail('in string literal');
    return inString;
  };
  const inEscape: State = (c) => {
    if ('bfnrt\\/"'.includes(String.fromCharCode(c))) return inString;
    if (c === 0x75) return hexEscape(4);
    return fail('in string escape code');
  };
  const hexEscape =
    (left: number): State =>
    (c) => {
      if (!isHex(c)) return fail('in \\u hexadecimal character escape');
      return left === 1 ? inString : hexEscape(left - 1);
    };
  const afterMinus: State = (c) => {
    if (c === 0x30) return zero;
    if (c >= 0x31 && c <= 0x39) return digits;
    return fail('in numeric literal');
  };
  const zero: State = (c) => {
    if (c === 0x2e) return afterDot;
    if (c === 0x65 || c === 0x45) return exponent;
    return endValue(c);
  };
  const digits: State = (c) => (isDigit(c) ? digits : zero(c));
  const afterDot: State = (c) => (isDigit(c) ? fraction : fail('after decimal point in numeric literal'));
  const fraction: State = (c) => {
    if (isDigit(c)) return fraction;
    if (c === 0x65 || c === 0x45) return exponent;
    return endValue(c);
  };
  const exponent: State = (c) => (c === 0x2b || c === 0x2d ? exponentSign : exponentSign(c));
  const exponentSign: State = (c) => (isDigit(c) ? exponentDigits : fail('in exponent of numeric literal'));
  const exponentDigits: State = (c) => (isDigit(c) ? exponentDigits : endValue(c));
  const beginValue: State = (c) => {
    if (isSpace(c)) return beginValue;
    switch (c) {
      case 0x7b:
        return open(true, beginStringOrEmpty);
      case 0x5b:
        return open(false, beginValueOrEmpty);
      case 0x22:
        return inString;
      case 0x2d:
        return afterMinus;
      case 0x30:
        return zero;
      case 0x74:
        return literal('true', 1, endValue);
      case 0x66:
        return literal('false', 1, endValue);
      case 0x6e:
        return literal('null', 1, endValue);
    }
    if (c >= 0x31 && c <= 0x39) return digits;
    return fail('looking for beginning of value');
  };
  const beginValueOrEmpty: State = (c) => {
    if (isSpace(c)) return beginValueOrEmpty;
    return c === 0x5d ? close() : beginValue(c);
  };
  const beginString: State = (c) => {
    if (isSpace(c)) return beginString;
    return c === 0x22 ? inString : fail('looking for beginning of object key string');
  };
  const beginStringOrEmpty: State = (c) => {
    if (isSpace(c)) return beginStringOrEmpty;
    return c === 0x7d ? close() : beginString(c);
  };

  let state: State = beginValue;
  for (const c of bytes) {
    const next = state(c);
    if (typeof next !== 'function') return `invalid character ${quoteChar(c)} ${next.context}`;
    state = next;
  }
  if (top.ended) return undefined;
  // The end of input is a space to the scanner: a number ends there, a literal or escape cut
  // short is refused there.
  const last = state(0x20);
  if (typeof last !== 'function') return `invalid character ' ' ${last.context}`;
  return top.ended ? undefined : 'unexpected end of JSON input';
}

/**
 * Go's words for a text that JSON.parse refused (the caller's parse failed first, so the scan
 * runs only on the error path).
 */
export function goJSONSyntaxError(text: string | Buffer): string {
  return goJSONSyntaxProblem(text) ?? 'unexpected end of JSON input';
}

/** How Go's encoding/json names a decoded JSON value's type in its errors (`cannot unmarshal <type> into ...`). */
export function goTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return 'object';
}

/**
 * How Go names the anonymous struct the reference's decoders read a body's apiVersion and kind
 * into first, which a value of another JSON type cannot fill.
 */
export const GO_TYPE_META_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * Go's utilerrors aggregate, as its Error() prints it: one message as it is, several (each once,
 * in order) in brackets.
 */
export function goAggregate(messages: readonly string[]): string {
  const distinct = [...new Set(messages)];
  return distinct.length === 1 ? distinct[0] : `[${distinct.join(', ')}]`;
}
