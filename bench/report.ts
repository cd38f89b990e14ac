/**
 * Results as Markdown tables: readable in a terminal and pasted as they are into docs/benchmarks.md.
 */
import type { ComparisonTable, ResultRow, ResultTable } from './benchmark';

export function formatTable(table: ResultTable): string {
  const header = ['metric', 'value', 'unit', 'note'];
  const cells = table.rows.map((row) => [row.metric, formatValue(row.value), row.unit, row.note ?? '']);
  return markdown(table.title, header, cells, new Set([1]));
}

/** One row a metric, one column a server, then capstan's ratio to the reference and the goal. */
export function formatComparison(table: ComparisonTable): string {
  const header = ['metric', ...table.columns, 'ratio', 'goal'];
  const cells = table.rows.map((row) => [
    row.metric,
    // A figure a server does not have (the reference has no event loop) shows as a dash.
    ...row.values.map((value) => (Number.isNaN(value) ? '—' : formatValue(value))),
    // A row without a meaningful ratio (a count the reference has at zero) leaves the cell empty.
    Number.isFinite(row.ratio) ? `${formatValue(row.ratio)}×` : '',
    row.goal,
  ]);
  const numeric = new Set(Array.from({ length: table.columns.length + 1 }, (_, index) => index + 1));
  return markdown(table.title, header, cells, numeric);
}

/** A titled Markdown table, the `numeric` columns right-aligned. */
function markdown(
  title: string,
  header: readonly string[],
  cells: readonly string[][],
  numeric: ReadonlySet<number>,
): string {
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column].length)));
  const line = (values: readonly string[]) =>
    `| ${values.map((value, column) => (numeric.has(column) ? value.padStart(widths[column]) : value.padEnd(widths[column]))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (numeric.has(column) ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [`### ${title}`, '', line(header), rule, ...cells.map(line)].join('\n');
}

/** Whole numbers with thousands separators from 100 up; three significant digits below. */
export function formatValue(value: ResultRow['value']): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}
