/**
 * Lists of an Indexed Job's indexes (`1,3-5,7`), as a Job's status keeps its completed and
 * failed ones and its success policy names those that must succeed: increasing intervals, each
 * within `completions`. The reference's parseIndexInterval and validateIndexesFormat decide what
 * is taken and in which words a list is refused.
 */

/** Go's strconv.Atoi on a 64-bit machine: an optional sign, decimal digits, within int64. */
function goAtoi(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value >= -(2n ** 63n) && value < 2n ** 63n ? Number(value) : undefined;
}

interface IndexInterval {
  readonly first: number;
  readonly last: number;
}

/** One interval of an index list (`3` or `1-4`) within `completions`, or Go's words for why not. */
function parseIndexInterval(text: string, completions: number): IndexInterval | string {
  const limits = text.split('-');
  if (limits.length > 2)
    return `the fragment ${JSON.stringify(text)} violates the requirement that an index interval can have at most two parts separated by '-'`;
  const bounds: number[] = [];
  for (const limit of limits) {
    const value = goAtoi(limit);
    if (value === undefined) return `cannot convert string to integer for index: ${JSON.stringify(limit)}`;
    if (value >= completions) return `too large index: ${JSON.stringify(limit)}`;
    bounds.push(value);
  }
  const [first, last = first] = bounds;
  if (bounds.length === 2 && first >= last) return `non-increasing order, previous: ${first}, current: ${last}`;
  return { first, last };
}

/** An index list read: how many indexes it holds, or the problem that stopped its reading. */
export type IndexList = { readonly total: number } | { readonly problem: string };

/** An index list within `completions`; the empty list holds none. */
export function parseIndexList(text: string, completions: number): IndexList {
  if (text === '') return { total: 0 };
  let previousLast: number | undefined;
  let total = 0;
  for (const intervalText of text.split(',')) {
    const interval = parseIndexInterval(intervalText, completions);
    if (typeof interval === 'string') return { problem: interval };
    if (previousLast !== undefined && previousLast >= interval.first)
      return { problem: `non-increasing order, previous: ${previousLast}, current: ${interval.first}` };
    total += interval.last - interval.first + 1;
    previousLast = interval.last;
  }
  return { total };
}

/**
 * The first index both lists hold, walking them together as the reference does; intervals that
 * do not parse are skipped (their format is reported apart).
 */
export function firstOverlap(completedText: string, failedText: string, completions: number): number | undefined {
  if (completedText === '' || failedText === '') return undefined;
  const completed = completedText.split(',').map((text) => parseIndexInterval(text, completions));
  const failed = failedText.split(',').map((text) => parseIndexInterval(text, completions));
  let c = 0;
  let f = 0;
  while (c < completed.length && f < failed.length) {
    const done = completed[c];
    const lost = failed[f];
    if (typeof done === 'string') c++;
    else if (typeof lost === 'string') f++;
    else {
      if (done.first <= lost.last && lost.first <= done.last) return Math.max(done.first, lost.first);
      if (done.first <= lost.first) c++;
      else f++;
    }
  }
  return undefined;
}
