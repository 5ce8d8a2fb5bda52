/**
 * The data of a table, chart or heatmap block as CSV (RFC 4180, via csv-stringify), for the page's
 * download links. Values are raw: numbers as published, never the page's rounded or unit-suffixed text.
 *
 * - table: the column labels, then one line per row with each cell's value (a cell object's `value`, or
 *   its sparkline's points when it has none; nothing for null or a missing key). The footer is left
 *   out: totals mixed into the rows would be summed again.
 * - chart: a line per category, a column per series (named with the chart's unit), as on the page's
 *   data table.
 * - heatmap: a line per row label, a column per column label.
 */
import { stringify } from 'csv-stringify/sync';
import { categoryNames } from './render/chart-options.js';
import type { Block, ChartBlock, HeatmapBlock, TableBlock, TableValue } from './spec-schema.js';

type CsvRecord = Array<string | number>;

/**
 * Text a spreadsheet would run as a formula (OWASP's "CSV injection"): a spec's strings come from agents,
 * so they are opened as text, with a leading apostrophe, never as `=HYPERLINK(…)`.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function text(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

function number(value: number | null | undefined): string | number {
  return value ?? '';
}

function tableCellText(value: TableValue | undefined): string | number {
  if (value === undefined || value === null) return '';
  const raw = typeof value === 'object' ? value.value : value;
  // A sparkline cell with no value of its own exports its points.
  if (raw === null) return typeof value === 'object' && value.spark ? value.spark.join(' ') : '';
  return typeof raw === 'number' ? raw : text(raw);
}

function tableRecords(block: TableBlock): CsvRecord[] {
  const columns = block.columns;
  const records: CsvRecord[] = [columns.map((column) => tableCellText(column.label))];
  for (const row of block.rows) records.push(columns.map((column) => tableCellText(Object.hasOwn(row, column.key) ? row[column.key] : undefined)));
  return records;
}

function chartRecords(block: ChartBlock): CsvRecord[] {
  const series = block.series ?? [];
  const unit = block.unit ? ` (${block.unit})` : '';
  const records: CsvRecord[] = [['', ...series.map((item) => text(`${item.name}${unit}`))]];
  categoryNames(block).forEach((category, index) => records.push([text(category), ...series.map((item) => number(item.data[index]))]));
  return records;
}

function heatmapRecords(block: HeatmapBlock): CsvRecord[] {
  const unit = block.unit ? ` (${block.unit})` : '';
  const records: CsvRecord[] = [[text(unit.trim()), ...block.xLabels.map(text)]];
  block.yLabels.forEach((label, y) => records.push([text(label), ...block.xLabels.map((_, x) => number(block.values[y]?.[x]))]));
  return records;
}

/** Whether the block has data to download: a chart drawn only from its `option` has none of its own. */
export function hasCsv(block: Block): boolean {
  if (block.type === 'table') return true;
  if (block.type === 'chart') return (block.series ?? []).length > 0;
  if (block.type === 'heatmap') return block.xLabels.length > 0 && block.yLabels.length > 0;
  return false;
}

/** The block's data as CSV, or null for a block that has none to download (see hasCsv). */
export function blockCsv(block: Block): string | null {
  if (!hasCsv(block)) return null;
  const records = block.type === 'table' ? tableRecords(block) : block.type === 'chart' ? chartRecords(block) : block.type === 'heatmap' ? heatmapRecords(block) : [];
  // CRLF as RFC 4180 asks, and any line break inside a value quoted (csv-stringify quotes only the
  // record delimiter itself); the byte order mark makes Excel read the file as UTF-8.
  return `\uFEFF${stringify(records, { record_delimiter: 'windows', quoted_match: /[\r\n]/ })}`;
}
