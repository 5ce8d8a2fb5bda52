/**
 * A table block as CSV (RFC 4180, via csv-stringify) for the page's download button: a header row of the
 * column labels, then one line per row with each cell's raw value (a cell object's `value`, or its
 * sparkline's points when it has none; nothing for null or a missing key). The footer is left out: totals mixed into the rows would be summed again.
 */
import { stringify } from 'csv-stringify/sync';
import type { TableBlock, TableValue } from './spec-schema.js';

/**
 * Text a spreadsheet would run as a formula (OWASP's "CSV injection"): a spec's strings come from agents,
 * so they are opened as text, with a leading apostrophe, never as `=HYPERLINK(…)`.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

function cellText(value: TableValue | undefined): string | number {
  if (value === undefined || value === null) return '';
  const raw = typeof value === 'object' ? value.value : value;
  // A sparkline cell with no value of its own exports its points.
  if (raw === null) return typeof value === 'object' && value.spark ? value.spark.join(' ') : '';
  if (typeof raw === 'number') return raw;
  return FORMULA_START.test(raw) ? `'${raw}` : raw;
}

export function tableCsv(block: TableBlock): string {
  const columns = block.columns;
  const records: Array<Array<string | number>> = [columns.map((column) => cellText(column.label))];
  for (const row of block.rows) records.push(columns.map((column) => cellText(Object.hasOwn(row, column.key) ? row[column.key] : undefined)));
  // CRLF as RFC 4180 asks, and any line break inside a value quoted (csv-stringify quotes only the
  // record delimiter itself); the byte order mark makes Excel read the file as UTF-8.
  return `\uFEFF${stringify(records, { record_delimiter: 'windows', quoted_match: /[\r\n]/ })}`;
}
