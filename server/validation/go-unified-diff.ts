/**
 * The unified diff of github.com/pmezard/go-difflib v1.0.0 (a port of Python's difflib), which
 * apimachinery's diff.Diff appends to the reference's "may not change" messages. Written here
 * because the message has to match byte for byte, and no npm package gives these bytes: `diff`
 * (jsdiff) finds its hunks with Myers' algorithm, which pairs lines differently from difflib's
 * longest-matching-block search, and `difflib` (a port of Python's, unmaintained since 2013)
 * always writes the `---`/`+++` header lines that go-difflib leaves out when no file is named.
 */

interface MatchingBlock {
  readonly a: number;
  readonly b: number;
  readonly size: number;
}

type Tag = 'equal' | 'replace' | 'delete' | 'insert';

interface OpCode {
  readonly tag: Tag;
  readonly i1: number;
  readonly i2: number;
  readonly j1: number;
  readonly j2: number;
}

/**
 * Where each line of `b` occurs. With 200 lines or more, a line found in more than 1% of them
 * (plus one) is left out as "popular" (difflib's autojunk): matches can still grow over such
 * lines, but never start on one. Pod specs are long and repeat lines like `"Value": ""`, so this
 * changes which blocks match.
 */
function lineIndexes(b: readonly string[]): Map<string, number[]> {
  const indexes = new Map<string, number[]>();
  b.forEach((line, j) => {
    const list = indexes.get(line);
    if (list === undefined) indexes.set(line, [j]);
    else list.push(j);
  });
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [line, list] of indexes) if (list.length > limit) indexes.delete(line);
  }
  return indexes;
}

class SequenceMatcher {
  private readonly indexesInB: Map<string, number[]>;

  constructor(
    private readonly a: readonly string[],
    private readonly b: readonly string[],
  ) {
    this.indexesInB = lineIndexes(b);
  }

  /**
   * The longest block of equal lines in a[aLow, aHigh) and b[bLow, bHigh), the earliest in `a`
   * among the longest and then the earliest in `b`; `size` 0 when none.
   */
  private longestMatch(aLow: number, aHigh: number, bLow: number, bHigh: number): MatchingBlock {
    let bestA = aLow;
    let bestB = bLow;
    let bestSize = 0;
    // Length of the match ending at a[i - 1] and b[j], by j.
    let lengthEndingAt = new Map<number, number>();
    for (let i = aLow; i < aHigh; i++) {
      const next = new Map<number, number>();
      for (const j of this.indexesInB.get(this.a[i]) ?? []) {
        if (j < bLow) continue;
        if (j >= bHigh) break;
        const length = (lengthEndingAt.get(j - 1) ?? 0) + 1;
        next.set(j, length);
        if (length > bestSize) {
          bestA = i - length + 1;
          bestB = j - length + 1;
          bestSize = length;
        }
      }
      lengthEndingAt = next;
    }
    // Grow the block over equal lines the index left out (popular ones) on either side.
    while (bestA > aLow && bestB > bLow && this.a[bestA - 1] === this.b[bestB - 1]) {
      bestA--;
      bestB--;
      bestSize++;
    }
    while (
      bestA + bestSize < aHigh &&
      bestB + bestSize < bHigh &&
      this.a[bestA + bestSize] === this.b[bestB + bestSize]
    )
      bestSize++;
    return { a: bestA, b: bestB, size: bestSize };
  }

  /** The matching blocks in order, adjacent ones joined, ending with an empty one at the ends. */
  matchingBlocks(): MatchingBlock[] {
    const found: MatchingBlock[] = [];
    const search = (aLow: number, aHigh: number, bLow: number, bHigh: number) => {
      const match = this.longestMatch(aLow, aHigh, bLow, bHigh);
      if (match.size === 0) return;
      if (aLow < match.a && bLow < match.b) search(aLow, match.a, bLow, match.b);
      found.push(match);
      if (match.a + match.size < aHigh && match.b + match.size < bHigh)
        search(match.a + match.size, aHigh, match.b + match.size, bHigh);
    };
    search(0, this.a.length, 0, this.b.length);
    const joined: MatchingBlock[] = [];
    let current: MatchingBlock = { a: 0, b: 0, size: 0 };
    for (const block of found) {
      if (current.a + current.size === block.a && current.b + current.size === block.b) {
        current = { a: current.a, b: current.b, size: current.size + block.size };
      } else {
        if (current.size > 0) joined.push(current);
        current = block;
      }
    }
    if (current.size > 0) joined.push(current);
    joined.push({ a: this.a.length, b: this.b.length, size: 0 });
    return joined;
  }

  /** The steps that turn `a` into `b`, each a range of both. */
  opCodes(): OpCode[] {
    const codes: OpCode[] = [];
    let i = 0;
    let j = 0;
    for (const block of this.matchingBlocks()) {
      const tag: Tag | undefined =
        i < block.a && j < block.b ? 'replace' : i < block.a ? 'delete' : j < block.b ? 'insert' : undefined;
      if (tag !== undefined) codes.push({ tag, i1: i, i2: block.a, j1: j, j2: block.b });
      i = block.a + block.size;
      j = block.b + block.size;
      if (block.size > 0) codes.push({ tag: 'equal', i1: block.a, i2: i, j1: block.b, j2: j });
    }
    return codes;
  }

  /**
   * The steps in groups of changes with up to `context` equal lines around each; equal runs
   * longer than twice the context split groups.
   */
  groupedOpCodes(context: number): OpCode[][] {
    const codes = this.opCodes();
    if (codes.length === 0) codes.push({ tag: 'equal', i1: 0, i2: 1, j1: 0, j2: 1 });
    const first = codes[0];
    if (first.tag === 'equal')
      codes[0] = { ...first, i1: Math.max(first.i1, first.i2 - context), j1: Math.max(first.j1, first.j2 - context) };
    const last = codes[codes.length - 1];
    if (last.tag === 'equal')
      codes[codes.length - 1] = {
        ...last,
        i2: Math.min(last.i2, last.i1 + context),
        j2: Math.min(last.j2, last.j1 + context),
      };
    const groups: OpCode[][] = [];
    let group: OpCode[] = [];
    for (const code of codes) {
      let { i1, j1 } = code;
      if (code.tag === 'equal' && code.i2 - i1 > 2 * context) {
        group.push({ tag: 'equal', i1, i2: Math.min(code.i2, i1 + context), j1, j2: Math.min(code.j2, j1 + context) });
        groups.push(group);
        group = [];
        i1 = Math.max(i1, code.i2 - context);
        j1 = Math.max(j1, code.j2 - context);
      }
      group.push({ tag: code.tag, i1, i2: code.i2, j1, j2: code.j2 });
    }
    if (group.length > 0 && !(group.length === 1 && group[0].tag === 'equal')) groups.push(group);
    return groups;
  }
}

/** A hunk's range as the unified format writes it: `start,length`, or `start` for one line. */
function unifiedRange(start: number, stop: number): string {
  const length = stop - start;
  if (length === 1) return `${start + 1}`;
  return `${length === 0 ? start : start + 1},${length}`;
}

/** go-difflib's SplitLines: each line keeps its newline, and the last one is given one. */
function splitLines(text: string): string[] {
  return text.split('\n').map((line) => `${line}\n`);
}

/**
 * go-difflib's GetUnifiedDiffString with no file names: only `@@` hunk headers and the lines,
 * prefixed by space, `-` or `+`. Empty when the texts are equal.
 */
function unifiedDiff(a: readonly string[], b: readonly string[], context = 3): string {
  let out = '';
  for (const group of new SequenceMatcher(a, b).groupedOpCodes(context)) {
    const first = group[0];
    const last = group[group.length - 1];
    out += `@@ -${unifiedRange(first.i1, last.i2)} +${unifiedRange(first.j1, last.j2)} @@\n`;
    for (const code of group) {
      if (code.tag === 'equal') {
        for (const line of a.slice(code.i1, code.i2)) out += ` ${line}`;
        continue;
      }
      if (code.tag !== 'insert') for (const line of a.slice(code.i1, code.i2)) out += `-${line}`;
      if (code.tag !== 'delete') for (const line of b.slice(code.j1, code.j2)) out += `+${line}`;
    }
  }
  return out;
}

/** apimachinery's diff.Diff over two texts already written as its JSON: three lines of context. */
export function goTextDiff(a: string, b: string): string {
  return unifiedDiff(splitLines(a), splitLines(b), 3);
}
