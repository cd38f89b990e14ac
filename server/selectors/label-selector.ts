/**
 * Label selectors in the reference's string syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a` (exists), `!a` (does not exist), joined by `,`. Written by hand because no
 * npm package parses this syntax; errors keep the reference parser's shapes so clients print
 * the familiar text.
 */
import type { KubeObject } from '../../api/objects';

export type LabelOperator = '=' | '!=' | 'in' | 'notin' | 'exists' | '!';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

export class SelectorParseError extends Error {}

const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

type Token =
  | { kind: 'identifier'; text: string }
  | { kind: 'operator'; text: '=' | '==' | '!=' | '!' | '(' | ')' | ',' }
  | { kind: 'end' };

const OPERATOR_CHARS = new Set(['=', '!', '(', ')', ',']);

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (OPERATOR_CHARS.has(c)) {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: 'operator', text: two });
        i += 2;
      } else {
        tokens.push({ kind: 'operator', text: c as '=' | '!' | '(' | ')' | ',' });
        i++;
      }
      continue;
    }
    let j = i;
    while (j < input.length && !OPERATOR_CHARS.has(input[j]) && !/\s/.test(input[j])) j++;
    tokens.push({ kind: 'identifier', text: input.slice(i, j) });
    i = j;
  }
  tokens.push({ kind: 'end' });
  return tokens;
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'end of string' : token.text;
}

function validateKey(key: string): void {
  const slash = key.indexOf('/');
  const [prefix, name] = slash >= 0 ? [key.slice(0, slash), key.slice(slash + 1)] : ['', key];
  const problems: string[] = [];
  if (slash >= 0 && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    problems.push('prefix part must be a valid DNS subdomain');
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  else if (!QUALIFIED_NAME_PART.test(name)) {
    problems.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  if (problems.length > 0) {
    throw new SelectorParseError(
      `unable to parse requirement: key: Invalid value: ${JSON.stringify(key)}: ${problems.join('; ')}`,
    );
  }
}

function validateValue(key: string, value: string, index: number): void {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    throw new SelectorParseError(
      `unable to parse requirement: values[${index}][${key}]: Invalid value: ${JSON.stringify(value)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  }
}

/** Parses a label selector; the empty string selects everything (no requirements). */
export function parseLabelSelector(input: string): LabelRequirement[] {
  const tokens = tokenize(input);
  let position = 0;
  const peek = (): Token => tokens[position];
  const next = (): Token => tokens[position++];
  const requirements: LabelRequirement[] = [];

  const expectIdentifier = (expected: string): string => {
    const token = next();
    if (token.kind !== 'identifier') throw new SelectorParseError(`found '${describe(token)}', expected: ${expected}`);
    return token.text;
  };

  const parseValueSet = (): string[] => {
    const open = next();
    if (open.kind !== 'operator' || open.text !== '(') {
      throw new SelectorParseError(`found '${describe(open)}', expected: '('`);
    }
    const values: string[] = [];
    for (;;) {
      const token = next();
      if (token.kind === 'identifier') {
        values.push(token.text);
        const separator = next();
        if (separator.kind === 'operator' && separator.text === ')') return values;
        if (separator.kind === 'operator' && separator.text === ',') continue;
        throw new SelectorParseError(`found '${describe(separator)}', expected: ',' or ')'`);
      }
      if (token.kind === 'operator' && token.text === ')') {
        // `a in ()` is the reference's empty value: one empty string.
        values.push('');
        return values;
      }
      if (token.kind === 'operator' && token.text === ',') {
        values.push('');
        continue;
      }
      throw new SelectorParseError(`found '${describe(token)}', expected: ',', ')' or identifier`);
    }
  };

  const parseRequirement = (): LabelRequirement => {
    const first = peek();
    if (first.kind === 'operator' && first.text === '!') {
      next();
      const key = expectIdentifier("identifier after '!'");
      validateKey(key);
      return { key, operator: '!', values: [] };
    }
    const key = expectIdentifier('identifier');
    validateKey(key);
    const op = peek();
    if (op.kind === 'end' || (op.kind === 'operator' && op.text === ',')) {
      return { key, operator: 'exists', values: [] };
    }
    next();
    if (op.kind === 'identifier' && (op.text === 'in' || op.text === 'notin')) {
      const values = parseValueSet();
      values.forEach((value, index) => validateValue(key, value, index));
      return { key, operator: op.text, values };
    }
    if (op.kind === 'operator' && (op.text === '=' || op.text === '==' || op.text === '!=')) {
      const valueToken = peek();
      let value = '';
      if (valueToken.kind === 'identifier') {
        value = valueToken.text;
        next();
      } else if (!(valueToken.kind === 'end' || (valueToken.kind === 'operator' && valueToken.text === ','))) {
        throw new SelectorParseError(`found '${describe(valueToken)}', expected: identifier`);
      }
      validateValue(key, value, 0);
      return { key, operator: op.text === '!=' ? '!=' : '=', values: [value] };
    }
    throw new SelectorParseError(`found '${describe(op)}', expected: in, notin, =, ==, !=, gt, lt`);
  };

  if (peek().kind === 'end') return requirements;
  for (;;) {
    requirements.push(parseRequirement());
    const separator = next();
    if (separator.kind === 'end') return requirements;
    if (!(separator.kind === 'operator' && separator.text === ',')) {
      throw new SelectorParseError(`found '${describe(separator)}', expected: ',' or 'end of string'`);
    }
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
  }
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
