/**
 * A CronJob's schedule as the reference reads it: robfig/cron v3's standard parser (five fields,
 * minute to day of week, or a descriptor such as `@hourly` or `@every 90m`, after an optional
 * `TZ=` or `CRON_TZ=` location). Written here to refuse what it refuses, with its words; the
 * first problem is the only one, as the parser stops there.
 */
import { goQuote } from '../../api/go-quote';

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  {
    min: 1,
    max: 12,
    names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
  },
  { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } },
];

const DESCRIPTORS: ReadonlySet<string> = new Set([
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
]);

/** Go's strconv.Atoi, as robfig's mustParseInt words its refusals. */
function parseNumber(text: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(text))
    return `failed to parse int from ${text}: strconv.Atoi: parsing ${goQuote(text)}: invalid syntax`;
  const value = BigInt(text);
  if (value < -(2n ** 63n) || value >= 2n ** 63n)
    return `failed to parse int from ${text}: strconv.Atoi: parsing ${goQuote(text)}: value out of range`;
  if (value < 0n) return `negative number (${value}) not allowed: ${text}`;
  // Anything past a field's maximum is refused below; a bigint keeps the number printed exact.
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

function parseNumberOrName(text: string, bounds: Bounds): number | string {
  const named = bounds.names?.[text.toLowerCase()];
  return named !== undefined ? named : parseNumber(text);
}

/** One comma-separated range of a field: `*`, `n`, `n-m`, each with an optional `/step`. */
function rangeProblem(expression: string, bounds: Bounds): string | undefined {
  const rangeAndStep = expression.split('/');
  const lowAndHigh = rangeAndStep[0].split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    const low = parseNumberOrName(lowAndHigh[0], bounds);
    if (typeof low === 'string') return low;
    start = low;
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) {
      const high = parseNumberOrName(lowAndHigh[1], bounds);
      if (typeof high === 'string') return high;
      end = high;
    } else return `too many hyphens: ${expression}`;
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    const parsed = parseNumber(rangeAndStep[1]);
    if (typeof parsed === 'string') return parsed;
    step = parsed;
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) return `too many slashes: ${expression}`;
  if (start < bounds.min) return `beginning of range (${start}) below minimum (${bounds.min}): ${expression}`;
  if (end > bounds.max) return `end of range (${end}) above maximum (${bounds.max}): ${expression}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expression}`;
  if (step === 0) return `step of range should be a positive number: ${expression}`;
  return undefined;
}

/** Go's time.ParseDuration's refusal of `text`, or undefined when it is a duration. */
function durationProblem(text: string): string | undefined {
  const quoted = `"${text}"`;
  if (text === '0' || text === '+0' || text === '-0') return undefined;
  const body = text.replace(/^[+-]/, '');
  if (body === '') return `time: invalid duration ${quoted}`;
  const part = /^([0-9]*(?:\.[0-9]*)?)([^0-9.]*)/;
  let rest = body;
  while (rest !== '') {
    const match = part.exec(rest)!;
    const [whole, number, unit] = match;
    if (number === '' || number === '.') return `time: invalid duration ${quoted}`;
    if (unit === '') return `time: missing unit in duration ${quoted}`;
    if (!['ns', 'us', 'µs', 'μs', 'ms', 's', 'm', 'h'].includes(unit))
      return `time: unknown unit ${goQuote(unit)} in duration ${quoted}`;
    rest = rest.slice(whole.length);
  }
  return undefined;
}

function descriptorProblem(descriptor: string): string | undefined {
  if (DESCRIPTORS.has(descriptor)) return undefined;
  if (descriptor.startsWith('@every ')) {
    const problem = durationProblem(descriptor.slice('@every '.length));
    return problem === undefined ? undefined : `failed to parse duration ${descriptor}: ${problem}`;
  }
  return `unrecognized descriptor: ${descriptor}`;
}

/**
 * What robfig's ParseStandard says is wrong with `schedule`, or undefined. `zoneProblem` judges a
 * `TZ=` location as Go's time.LoadLocation would (undefined when it loads).
 */
export function cronScheduleProblem(
  schedule: string,
  zoneProblem: (zone: string) => string | undefined,
): string | undefined {
  let spec = schedule;
  if (spec === '') return 'empty spec string';
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const space = spec.indexOf(' ');
    const zone = spec.slice(spec.indexOf('=') + 1, space === -1 ? undefined : space);
    const problem = zoneProblem(zone);
    if (problem !== undefined) return `provided bad location ${zone}: ${problem}`;
    spec = space === -1 ? '' : spec.slice(space).trim();
  }
  if (spec.startsWith('@')) return descriptorProblem(spec);
  const fields = spec.split(/\s+/).filter((field) => field !== '');
  if (fields.length !== FIELDS.length)
    return `expected exactly ${FIELDS.length} fields, found ${fields.length}: [${fields.join(' ')}]`;
  for (const [index, field] of fields.entries()) {
    // Empty ranges (`1,,2`, a lone `,`) are skipped, as Go's FieldsFunc drops them.
    for (const expression of field.split(',').filter((part) => part !== '')) {
      const problem = rangeProblem(expression, FIELDS[index]);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}
