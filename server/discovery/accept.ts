/**
 * Parsing of the HTTP `Accept` header into media ranges with their parameters and weights.
 *
 * Written here rather than taken from `negotiator`/`accepts` because those choose among offered
 * strings by wildcard matching, while the API server chooses by parameters: a range only asks for
 * aggregated discovery (or a Table, or metadata) when it names `g`, `v` and `as` explicitly, and
 * `*\/*` must mean the plain form. Lives in discovery for now; it will move to the negotiation
 * module of server/http/ when that lands.
 */

export interface MediaRange {
  /** Lowercased, `*` allowed. */
  readonly type: string;
  /** Lowercased, `*` allowed. */
  readonly subtype: string;
  /** Parameters other than `q`; names lowercased, values as sent (unquoted). */
  readonly parameters: Readonly<Record<string, string>>;
  /** Weight from `q`, 1 when absent. */
  readonly quality: number;
}

/**
 * The ranges of an `Accept` header, best first: by weight, then in the order sent (ties keep
 * the client's order, as the reference's negotiation does). Ranges with `q=0` and malformed
 * entries are dropped. An absent or empty header yields `*\/*`.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') {
    return [{ type: '*', subtype: '*', parameters: {}, quality: 1 }];
  }
  const ranges = splitOutsideQuotes(header, ',')
    .map(parseMediaRange)
    .filter((range): range is MediaRange => range !== undefined && range.quality > 0);
  // Array.prototype.sort is stable, so equal weights keep the client's order.
  return ranges.sort((a, b) => b.quality - a.quality);
}

/** Whether `range` admits the concrete type `type/subtype` (wildcards allowed in the range). */
export function rangeMatchesType(range: MediaRange, type: string, subtype: string): boolean {
  if (range.type === '*') return true;
  return range.type === type && (range.subtype === '*' || range.subtype === subtype);
}

function parseMediaRange(text: string): MediaRange | undefined {
  const [fullType, ...parameterTexts] = splitOutsideQuotes(text, ';');
  const slash = fullType.indexOf('/');
  if (slash <= 0 || slash === fullType.length - 1) return undefined;
  const type = fullType.slice(0, slash).trim().toLowerCase();
  const subtype = fullType.slice(slash + 1).trim().toLowerCase();
  if (type === '' || subtype === '' || (type === '*' && subtype !== '*')) return undefined;

  const parameters: Record<string, string> = {};
  let quality = 1;
  for (const parameterText of parameterTexts) {
    const equals = parameterText.indexOf('=');
    if (equals <= 0) continue;
    const name = parameterText.slice(0, equals).trim().toLowerCase();
    const value = unquote(parameterText.slice(equals + 1).trim());
    if (name === 'q') {
      const weight = Number(value);
      if (!Number.isFinite(weight) || weight < 0 || weight > 1) return undefined;
      quality = weight;
    } else {
      parameters[name] = value;
    }
  }
  return { type, subtype, parameters, quality };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

/** Split on `separator` except inside double-quoted strings; pieces are trimmed, empty ones dropped. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const pieces: string[] = [];
  let current = '';
  let inQuotes = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (inQuotes && character === '\\' && index + 1 < text.length) {
      current += character + text[index + 1];
      index++;
      continue;
    }
    if (character === '"') inQuotes = !inQuotes;
    if (character === separator && !inQuotes) {
      pieces.push(current);
      current = '';
    } else {
      current += character;
    }
  }
  pieces.push(current);
  return pieces.map((piece) => piece.trim()).filter((piece) => piece !== '');
}
