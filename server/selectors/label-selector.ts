/**
 * Label selectors in the reference's string syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a` (exists), `!a` (does not exist), `a>1` and `a<1` (the label read as an
 * integer), joined by `,`. Written by hand because no
 * npm package parses this syntax; the lexer and parser follow the reference's step by step, so
 * that odd input (other spaces, a NUL, `<`) fails where and with the words it fails there, and
 * values print as Go's `%q` quotes them.
 */
import { goAggregate } from '../../api/go-json-syntax';
import type { KubeObject } from '../../api/objects';
import { goParseInt64 } from '../../api/go-number';
import { goQuote } from '../../api/go-quote';
import { isQualifiedName, isValidLabelValue } from '../validation/names';

export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export class SelectorParseError extends Error {}

/** The reference lexer's tokens: a symbol, a keyword, an identifier or the end (whose text is empty). */
interface Token {
  readonly kind: 'identifier' | 'in' | 'notin' | 'end' | SymbolText;
  readonly text: string;
}

type SymbolText = '(' | ')' | ',' | '!' | '!=' | '=' | '==' | '<' | '>';

const SYMBOLS: ReadonlySet<string> = new Set<SymbolText>(['(', ')', ',', '!', '!=', '=', '==', '<', '>']);
const SYMBOL_CHARACTERS: ReadonlySet<string> = new Set(['=', '!', '(', ')', ',', '>', '<']);
/** Only these: other spaces (a no-break space, a vertical tab) belong to identifiers, as in the reference. */
const WHITESPACE: ReadonlySet<string> = new Set([' ', '\t', '\r', '\n']);
/**
 * The reference's lexer reads byte 0 as the end of its input, so a NUL ends what it is reading:
 * the whole selector where a token would start, else only the identifier or symbol it ends.
 */
const NUL = '\0';

function tokenize(input: string): Token[] {
  let position = 0;
  const read = (): string => (position < input.length ? input[position++] : NUL);
  const scanSymbol = (): Token => {
    let text = '';
    let symbol = '';
    for (let c = read(); c !== NUL; c = read()) {
      if (!SYMBOL_CHARACTERS.has(c)) {
        position--;
        break;
      }
      text += c;
      if (SYMBOLS.has(text)) symbol = text;
      else {
        // Longest match: `!=` is one symbol, `=(` is `=` then `(`.
        position--;
        break;
      }
    }
    return { kind: symbol as SymbolText, text: symbol };
  };
  const scanWord = (): Token => {
    let text = '';
    for (let c = read(); c !== NUL; c = read()) {
      if (SYMBOL_CHARACTERS.has(c) || WHITESPACE.has(c)) {
        position--;
        break;
      }
      text += c;
    }
    return { kind: text === 'in' || text === 'notin' ? text : 'identifier', text };
  };
  const tokens: Token[] = [];
  for (;;) {
    let c = read();
    while (WHITESPACE.has(c)) c = read();
    if (c === NUL) {
      tokens.push({ kind: 'end', text: '' });
      return tokens;
    }
    position--;
    tokens.push(SYMBOL_CHARACTERS.has(c) ? scanSymbol() : scanWord());
  }
}

/** An error of one requirement, which the reference reports as `unable to parse requirement: ...`. */
class RequirementError extends Error {}

/** The key is checked where the parser reads it, at the reference's path of none, which prints `<nil>`. */
function checkKey(key: string): void {
  const problems = isQualifiedName(key);
  if (problems.length > 0) throw new RequirementError(`<nil>: Invalid value: ${goQuote(key)}: ${problems.join('; ')}`);
}

/** The reference's NewRequirement checks of the values, every error at once (values are sorted by then). */
function checkValues(key: string, operator: LabelOperator, values: readonly string[]): void {
  const problems: string[] = [];
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((value, index) => {
      if (goParseInt64(value) === undefined)
        problems.push(
          `values[${index}]: Invalid value: ${goQuote(value)}: for 'Gt', 'Lt' operators, the value must be an integer`,
        );
    });
  }
  values.forEach((value, index) => {
    const messages = isValidLabelValue(value);
    if (messages.length > 0)
      problems.push(`values[${index}][${key}]: Invalid value: ${goQuote(value)}: ${messages.join('; ')}`);
  });
  if (problems.length > 0) throw new RequirementError(goAggregate(problems));
}

const BINARY_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  in: 'in',
  notin: 'notin',
  '=': '=',
  '==': '=',
  '!=': '!=',
  '>': 'gt',
  '<': 'lt',
};

/**
 * Parses a label selector as the reference's parser does, with its error texts; the empty
 * string selects everything (no requirements).
 */
export function parseLabelSelector(input: string): LabelRequirement[] {
  const tokens = tokenize(input);
  let position = 0;
  // Where a value may stand, `in` and `notin` are identifiers.
  const asValue = (token: Token): Token =>
    token.kind === 'in' || token.kind === 'notin' ? { kind: 'identifier', text: token.text } : token;
  const lookahead = (): Token => asValue(tokens[position]);
  const consume = (): Token => asValue(tokens[position++]);

  const parseValueSet = (): string[] => {
    const open = consume();
    if (open.kind !== '(') throw new RequirementError(`found '${open.text}' expected: '('`);
    const first = lookahead();
    if (first.kind === ')') {
      consume();
      return [''];
    }
    if (first.kind !== 'identifier' && first.kind !== ',')
      throw new RequirementError(`found '${first.text}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const token = consume();
      if (token.kind === 'identifier') {
        values.add(token.text);
        const after = lookahead();
        if (after.kind === ')') break;
        if (after.kind !== ',') throw new RequirementError(`found '${after.text}', expected: ',' or ')'`);
      } else if (token.kind === ',') {
        // `(,`, `,,` and `,)` each stand for the empty value.
        if (values.size === 0) values.add('');
        const after = lookahead();
        if (after.kind === ')') {
          values.add('');
          break;
        }
        if (after.kind === ',') {
          consume();
          values.add('');
        }
      } else throw new RequirementError(`found '${token.text}', expected: ',', or identifier`);
    }
    consume(); // the `)` the loop stopped before
    return [...values];
  };

  const parseExactValue = (): string[] => {
    const ahead = lookahead();
    if (ahead.kind === 'end' || ahead.kind === ',') return [''];
    const token = consume();
    if (token.kind !== 'identifier') throw new RequirementError(`found '${token.text}', expected: identifier`);
    return [token.text];
  };

  const parseRequirement = (): LabelRequirement => {
    let token = consume();
    const doesNotExist = token.kind === '!';
    if (doesNotExist) token = consume();
    if (token.kind !== 'identifier') throw new RequirementError(`found '${token.text}', expected: identifier`);
    const key = token.text;
    checkKey(key);
    if (doesNotExist) return { key, operator: '!', values: [] };
    const ahead = lookahead();
    if (ahead.kind === 'end' || ahead.kind === ',') return { key, operator: 'exists', values: [] };
    // Here `in` and `notin` are operators.
    const operatorToken = tokens[position++];
    const operator = BINARY_OPERATORS[operatorToken.kind];
    if (operator === undefined)
      throw new RequirementError(`found '${operatorToken.text}', expected: in, notin, =, ==, !=, gt, lt`);
    const values = (operator === 'in' || operator === 'notin' ? parseValueSet() : parseExactValue()).sort();
    checkValues(key, operator, values);
    return { key, operator, values };
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const ahead = lookahead();
    if (ahead.kind === 'end') return requirements;
    if (ahead.kind !== 'identifier' && ahead.kind !== '!')
      throw new SelectorParseError(`found '${ahead.text}', expected: !, identifier, or 'end of string'`);
    try {
      requirements.push(parseRequirement());
    } catch (error) {
      if (error instanceof RequirementError)
        throw new SelectorParseError(`unable to parse requirement: ${error.message}`);
      throw error;
    }
    const separator = consume();
    if (separator.kind === 'end') return requirements;
    if (separator.kind !== ',')
      throw new SelectorParseError(`found '${separator.text}', expected: ',' or 'end of string'`);
    const next = lookahead();
    if (next.kind !== 'identifier' && next.kind !== '!')
      throw new SelectorParseError(`found '${next.text}', expected: identifier after ','`);
  }
}

export function labelRequirementMatches(
  requirement: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const value = has ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case '=':
    case 'in':
      return has && requirement.values.includes(value as string);
    case '!=':
    case 'notin':
      return !has || !requirement.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt':
      return has && comparesAsIntegers(requirement.operator, value as string, requirement.values);
  }
}

/** The reference's Gt and Lt: false when the label is not an integer, else its comparison with the one value. */
function comparesAsIntegers(operator: 'gt' | 'lt', label: string, values: readonly string[]): boolean {
  const labelValue = goParseInt64(label);
  const wanted = values.length === 1 ? goParseInt64(values[0]) : undefined;
  if (labelValue === undefined || wanted === undefined) return false;
  return operator === 'gt' ? labelValue > wanted : labelValue < wanted;
}

export function matchesLabels(requirements: readonly LabelRequirement[], object: KubeObject): boolean {
  const labels = object.metadata?.labels ?? {};
  return requirements.every((requirement) => labelRequirementMatches(requirement, labels));
}

/**
 * A LabelSelector object (`matchLabels`, `matchExpressions`) in its string form, as the
 * reference prints it (`app=web,tier in (a,b)`): requirements sorted by key, values sorted;
 * '' when it selects everything. Anything not shaped like a selector prints as nothing.
 */
export function formatLabelSelector(selector: unknown): string {
  const fields = (value: unknown): Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const strings = (value: unknown): string[] =>
    Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : '')) : [];
  const { matchLabels, matchExpressions } = fields(selector);
  const parts = Object.entries(fields(matchLabels)).map(([key, value]) => ({
    key,
    text: `${key}=${typeof value === 'string' ? value : ''}`,
  }));
  for (const expression of Array.isArray(matchExpressions) ? matchExpressions : []) {
    const { key: rawKey, operator, values } = fields(expression);
    const key = typeof rawKey === 'string' ? rawKey : '';
    const set = `(${strings(values).sort().join(',')})`;
    if (operator === 'In') parts.push({ key, text: `${key} in ${set}` });
    else if (operator === 'NotIn') parts.push({ key, text: `${key} notin ${set}` });
    else if (operator === 'Exists') parts.push({ key, text: key });
    else if (operator === 'DoesNotExist') parts.push({ key, text: `!${key}` });
  }
  return parts
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((part) => part.text)
    .join(',');
}
