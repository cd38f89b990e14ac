/**
 * Results as Markdown tables: readable in a terminal and pasted as they are into the README.
 */
import type { ResultRow, ResultTable } from './benchmark';

export function formatTable(table: ResultTable): string {
  const header = ['metric', 'value', 'unit', 'note'];
  const cells = table.rows.map((row) => [row.metric, formatValue(row.value), row.unit, row.note ?? '']);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column].length)));
  const line = (values: string[]) =>
    `| ${values.map((value, column) => (column === 1 ? value.padStart(widths[column]) : value.padEnd(widths[column]))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (column === 1 ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  return [`### ${table.title}`, '', line(header), rule, ...cells.map(line)].join('\n');
}

/** Whole numbers with thousands separators from 100 up; three significant digits below. */
export function formatValue(value: ResultRow['value']): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}
