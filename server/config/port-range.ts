/**
 * The node port range of `--service-node-port-range`, read as the reference's `PortRange` flag
 * reads it: `a-b`, `a+n` (n ports after a) or one port `a`, with its error texts. Printed as
 * `a-b`, the form the reference keeps in its RangeAllocation.
 */

/** The reference's default. */
export const DEFAULT_NODE_PORT_RANGE = '30000-32767';

export class PortRange {
  constructor(
    readonly base: number,
    /** Ports in the range, the base included. */
    readonly size: number,
  ) {}

  get last(): number {
    return this.base + this.size - 1;
  }

  contains(port: number): boolean {
    return Number.isInteger(port) && port >= this.base && port <= this.last;
  }

  toString(): string {
    return `${this.base}-${this.last}`;
  }
}

/** Go's strconv.Atoi, with its error text. */
function atoi(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new Error(`strconv.Atoi: parsing ${JSON.stringify(text)}: value out of range`);
  return value;
}

/** The range of a flag value; throws with the reference's message when it refuses it. */
export function parsePortRange(value: string): PortRange {
  const text = value.trim();
  if (text === '') return new PortRange(0, 0);
  const hyphen = text.indexOf('-');
  const plus = text.indexOf('+');
  let low: number;
  let high: number;
  if (hyphen < 0 && plus < 0) {
    low = high = atoi(text);
  } else if (hyphen >= 0 && plus < 0) {
    low = atoi(text.slice(0, hyphen));
    high = atoi(text.slice(hyphen + 1));
  } else if (plus >= 0 && hyphen < 0) {
    low = atoi(text.slice(0, plus));
    high = low + atoi(text.slice(plus + 1));
  } else {
    throw new Error(`unable to parse port range: ${text}`);
  }
  if (low > 65535 || high > 65535) throw new Error(`the port range cannot be greater than 65535: ${text}`);
  if (high < low) throw new Error(`end port cannot be less than start port: ${text}`);
  return new PortRange(low, 1 + high - low);
}
