/**
 * Whether a timestamp is one the reference's decoder takes, and if not Go's own words for it:
 * metav1.Time is read with `time.Parse(time.RFC3339, ...)` and metav1.MicroTime with
 * RFC3339 and exactly six fraction digits. A body with any other text there cannot be handled
 * as its kind. Go's general parser is followed step by step, since its message names the
 * element where the text stopped fitting (`cannot parse "x" as "2006"`) or the field out of
 * range (`month out of range`).
 */

export const RFC3339_LAYOUT = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/**
 * Go's time package quotes with its own helper, not strconv.Quote: every byte of a character
 * outside printable ASCII as `\xNN` (DEL stays as it is), `"` and `\` escaped.
 */
export function goTimeQuote(text: string): string {
  let out = '"';
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80) {
      for (const byte of Buffer.from(character, 'utf8')) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    } else out += character === '"' || character === '\\' ? `\\${character}` : character;
  }
  return `${out}"`;
}

class Mismatch {
  constructor(
    readonly valueElement: string,
    readonly layoutElement: string,
  ) {}
}

class OutOfRange {
  constructor(readonly message: string) {}
}

const isDigit = (text: string, index: number) =>
  index < text.length && text.charCodeAt(index) >= 48 && text.charCodeAt(index) <= 57;

/** Go's getnum: one or two digits, exactly two when `fixed`. */
function twoDigits(text: string, fixed: boolean): { value: number; rest: string } | undefined {
  if (!isDigit(text, 0)) return undefined;
  if (!isDigit(text, 1)) return fixed ? undefined : { value: Number(text[0]), rest: text.slice(1) };
  return { value: Number(text.slice(0, 2)), rest: text.slice(2) };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function literal(text: string, expected: string): string {
  if (!text.startsWith(expected)) throw new Mismatch(text, expected);
  return text.slice(expected.length);
}

/** A number in 0..max from exactly two digits; `field` names it when out of range. */
function bounded(
  text: string,
  layoutElement: string,
  field: string,
  range: { min: number; max: number },
  fixed = true,
): { value: number; rest: string } {
  const found = twoDigits(text, fixed);
  if (found === undefined) throw new Mismatch(text, layoutElement);
  if (found.value < range.min || found.value > range.max) throw new OutOfRange(`${field} out of range`);
  return found;
}

function parse(value: string, micro: boolean): void {
  let rest = value;
  if (rest.length < 4 || !/^\d{4}/.test(rest)) throw new Mismatch(rest, '2006');
  const year = Number(rest.slice(0, 4));
  rest = literal(rest.slice(4), '-');
  const month = bounded(rest, '01', 'month', { min: 1, max: 12 });
  rest = literal(month.rest, '-');
  const day = twoDigits(rest, true);
  if (day === undefined) throw new Mismatch(rest, '02');
  rest = literal(day.rest, 'T');
  const hour = bounded(rest, '15', 'hour', { min: 0, max: 23 }, false);
  rest = literal(hour.rest, ':');
  const minute = bounded(rest, '04', 'minute', { min: 0, max: 59 });
  rest = literal(minute.rest, ':');
  const second = bounded(rest, '05', 'second', { min: 0, max: 59 });
  rest = second.rest;
  if (micro) {
    // The layout's fraction wants its dot and exactly its six digits.
    if (!/^[.,]\d{6}/.test(rest)) throw new Mismatch(rest, '.000000');
    rest = rest.slice(7);
  } else if (rest.length >= 2 && (rest[0] === '.' || rest[0] === ',') && isDigit(rest, 1)) {
    // A fraction the layout does not show is still read after the seconds.
    let end = 2;
    while (isDigit(rest, end)) end++;
    rest = rest.slice(end);
  }
  rest = zone(rest);
  if (rest.length > 0) throw new OutOfRange(`extra text: ${goTimeQuote(rest)}`);
  if (day.value < 1 || day.value > daysIn(month.value, year)) throw new OutOfRange('day out of range');
}

/** `Z07:00`: a `Z`, or a sign, two hour digits, a colon and two minute digits. */
function zone(text: string): string {
  if (text.startsWith('Z')) return text.slice(1);
  if (text.length < 6 || text[3] !== ':' || (text[0] !== '+' && text[0] !== '-')) throw new Mismatch(text, 'Z07:00');
  const hours = twoDigits(text.slice(1, 3), true);
  const minutes = twoDigits(text.slice(4, 6), true);
  if (hours === undefined || minutes === undefined) throw new Mismatch(text, 'Z07:00');
  if (hours.value > 24) throw new OutOfRange('time zone offset hour out of range');
  if (minutes.value > 60) throw new OutOfRange('time zone offset minute out of range');
  return text.slice(6);
}

/** Go's error text for a timestamp its layout refuses, or undefined when it parses. */
export function goTimeParseError(
  value: string,
  layout: typeof RFC3339_LAYOUT | typeof RFC3339_MICRO_LAYOUT,
): string | undefined {
  try {
    parse(value, layout === RFC3339_MICRO_LAYOUT);
    return undefined;
  } catch (error) {
    if (error instanceof Mismatch) {
      return `parsing time ${goTimeQuote(value)} as ${goTimeQuote(layout)}: cannot parse ${goTimeQuote(error.valueElement)} as ${goTimeQuote(error.layoutElement)}`;
    }
    if (error instanceof OutOfRange) return `parsing time ${goTimeQuote(value)}: ${error.message}`;
    throw error;
  }
}
