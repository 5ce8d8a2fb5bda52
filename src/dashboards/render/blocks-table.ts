/**
 * Tabular kinds: table (up to 5,000 rows, searchable in the browser), comparison and statusMatrix.
 * Rows are built as arrays of strings and joined once: a 5,000 × 8 table is 40,000 cells.
 */
import type { ComparisonBlock, StatusMatrixBlock, TableBlock, TableCell, TableRow, TableValue } from '../spec-schema.js';
import { escapeAttr, escapeHtml, escapeScalar, formatNumber, linkAttributes, safeUrl } from './escape.js';
import type { RenderContext } from './render-context.js';
import { describeTrend, renderSparkline } from './sparkline.js';
import { percentWidth, toneClass } from './tone.js';

type Column = TableBlock['columns'][number];

/** Column widths go into a style attribute, so only plain lengths are accepted ("40%", "12rem", "120px"). */
const CSS_LENGTH = /^\d{1,4}(?:\.\d{1,3})?(?:px|%|em|rem|ch|vw)?$/;

function columnWidth(width: string | undefined): string {
  const trimmed = width?.trim();
  if (!trimmed || !CSS_LENGTH.test(trimmed)) return '';
  return ` style="width:${/\d$/.test(trimmed) ? `${trimmed}px` : trimmed}"`;
}

/**
 * Long tables show their first rows until the reader asks for all: laying out 5,000 rows takes a
 * browser seconds, and every filter keystroke that reveals them again would pay that once more.
 * Search still covers every row. Paper always gets every row.
 */
export const PAGE_ROWS = 200;
const PAGED_FROM = 250;
/** A table with more columns is printed in columns of equal width, its cells wrapped anywhere (see src/web/styles.ts). */
const WIDE_TABLE_COLUMNS = 10;

const NIL = '<span class="nil" aria-label="no value">—</span>';

const DOWNLOAD_ICON = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 3v12m0 0-5-5m5 5 5-5M4 19h16"/></svg>';

function isCell(value: TableValue): value is TableCell {
  return value !== null && typeof value === 'object';
}

/** A row's value for a column. Own properties only: a column keyed "constructor" must not read Object. */
function valueOf(row: TableRow, key: string): TableValue | undefined {
  return Object.hasOwn(row, key) ? row[key] : undefined;
}

function scalarHtml(value: string | number | null | undefined): string {
  if (value === null) return NIL;
  if (value === undefined) return '';
  return typeof value === 'number' ? formatNumber(value) : escapeHtml(value);
}

const NOT_A_LINK = 'This cell is not a link';

/**
 * Where a cell is, to report an href the page leaves out: one object per table, moved along as the
 * table is walked, rather than one per cell of 5,000 rows.
 */
interface CellSite {
  context: RenderContext;
  /** A row's index, or null in the footer. */
  row: number | null;
  key: string;
}

function cellContent(value: TableValue | undefined, site: CellSite): string {
  if (value === undefined) return '';
  if (!isCell(value)) return scalarHtml(value);
  let text = value.value === null && (value.spark || value.bar !== undefined) ? '' : scalarHtml(value.value);
  const url = safeUrl(value.href);
  if (value.href && !url) {
    const where = site.row === null ? ['footer', site.key, 'href'] : ['rows', site.row, site.key, 'href'];
    site.context.noteRefusedUrl(NOT_A_LINK, value.href, ...where);
  }
  if (url && text) text = `<a ${linkAttributes(url)}>${text}</a>`;
  if (value.badge) text = `<span class="badge${toneClass(value.tone ?? 'neutral')}">${text}</span>`;
  else if (value.tone) text = `<span class="tone-text${toneClass(value.tone)}">${text}</span>`;
  if (value.bar !== undefined) {
    text = `<span class="cell-bar${toneClass(value.tone)}"><span class="cell-bar-track"><span style="width:${percentWidth(value.bar)}"></span></span><span class="cell-bar-value">${text}</span></span>`;
  }
  if (value.spark && value.spark.length > 0) text += renderSparkline(value.spark, describeTrend(value.spark, formatNumber));
  return text;
}

/** A column is numeric when it says so, or (unsaid) when its first value is a number. */
function isNumericColumn(column: Column, rows: readonly TableRow[]): boolean {
  if (column.numeric !== undefined) return column.numeric;
  for (const row of rows) {
    const value = valueOf(row, column.key);
    if (value === undefined || value === null || value === '') continue;
    const scalar = isCell(value) ? value.value : value;
    if (scalar === null) continue;
    return typeof scalar === 'number';
  }
  return false;
}

function alignClass(column: Column, numeric: boolean): string {
  const align = column.align ?? (numeric ? 'right' : 'left');
  return align === 'right' ? 'r' : align === 'center' ? 'c' : '';
}

export function renderTable(block: TableBlock, context: RenderContext): string {
  const tableId = context.nextId('table');
  const columns = block.columns;
  const classes = columns.map((column) => {
    const numeric = isNumericColumn(column, block.rows);
    return [alignClass(column, numeric), numeric ? 'num' : ''].filter(Boolean).join(' ');
  });
  const classAttr = classes.map((name) => (name ? ` class="${name}"` : ''));
  const head: string[] = [];
  if (block.numbered) head.push('<th class="rn" scope="col"><span class="sr-only">Row</span>#</th>');
  columns.forEach((column, index) => {
    const width = columnWidth(column.width);
    head.push(`<th scope="col"${classAttr[index]}${width}>${escapeHtml(column.label)}</th>`);
  });

  const body: string[] = [];
  const rows = block.rows;
  const site: CellSite = { context, row: 0, key: '' };
  for (let rowIndex = 0; rowIndex < rows.length; rowIndex += 1) {
    const row = rows[rowIndex] as TableRow;
    site.row = rowIndex;
    body.push('<tr>');
    if (block.numbered) body.push(`<td class="rn">${rowIndex + 1}</td>`);
    for (let columnIndex = 0; columnIndex < columns.length; columnIndex += 1) {
      const column = columns[columnIndex] as Column;
      site.key = column.key;
      body.push(`<td${classAttr[columnIndex]}>${cellContent(valueOf(row, column.key), site)}</td>`);
    }
    body.push('</tr>');
  }

  let foot = '';
  if (block.footer) {
    const footer = block.footer;
    site.row = null;
    const cells = columns.map((column, index) => {
      site.key = column.key;
      return `<td${classAttr[index]}>${cellContent(valueOf(footer, column.key), site)}</td>`;
    });
    foot = `<tfoot><tr>${block.numbered ? '<td class="rn"></td>' : ''}${cells.join('')}</tr></tfoot>`;
  }

  const paged = rows.length > PAGED_FROM;
  // Past this many columns a table cannot keep its headings' words and its numbers whole on a page.
  const wide = columns.length > WIDE_TABLE_COLUMNS;
  const tableClasses = ['tbl', block.striped ? 'striped' : '', block.numbered ? 'numbered' : '', paged ? 'paged' : '', wide ? 'wide' : ''].filter(Boolean).join(' ');
  const label = block.title ?? 'table';
  const search = block.searchable
    ? `<input type="search" class="tbl-search" data-table="${tableId}" placeholder="Filter ${formatNumber(rows.length)} rows…" aria-label="${escapeAttr(`Filter rows of ${label}`)}" autocomplete="off" spellcheck="false">` +
      `<span class="tbl-count" aria-live="polite">${formatNumber(rows.length)} rows</span>`
    : '';
  const download = context.downloadBase
    ? `<a class="btn tbl-csv" href="${escapeAttr(`${context.downloadBase}${context.blockPath}.csv`)}" download aria-label="${escapeAttr(`Download ${label} as CSV`)}">${DOWNLOAD_ICON}CSV</a>`
    : '';
  const tools = search || download ? `<div class="tbl-tools">${search}${download}</div>` : '';
  const scrollStyle = block.maxHeight !== undefined ? ` style="max-height:${block.maxHeight}px"` : '';
  const scrollClass = block.maxHeight !== undefined ? 'tbl-scroll capped' : 'tbl-scroll';
  // A checkbox (styled as a button by its label) lifts the cap without script; see src/web/styles.ts.
  const showAllId = paged ? context.nextId('table-all') : '';
  const showAll = paged ? `<input type="checkbox" class="tbl-all" id="${showAllId}">` : '';
  const more = paged
    ? `<div class="tbl-more"><span class="tbl-shown">Showing the first ${PAGE_ROWS} of ${formatNumber(rows.length)} rows.</span>` +
      `<label class="btn" for="${showAllId}">Show all ${formatNumber(rows.length)} rows</label></div>`
    : '';
  return (
    `${tools}${showAll}<div class="${scrollClass}"${scrollStyle} tabindex="0" role="region" aria-label="${escapeAttr(label)}">` +
    `<table class="${tableClasses}" id="${tableId}" data-sortable${paged ? ` data-page="${PAGE_ROWS}"` : ''}><thead><tr>${head.join('')}</tr></thead><tbody>${body.join('')}</tbody>${foot}</table></div>` +
    (block.searchable && rows.length > 0 ? `<p class="tbl-empty" hidden>No rows match.</p>` : '') +
    (rows.length === 0 ? '<p class="blk-empty">No rows.</p>' : '') +
    more
  );
}

function comparisonValue(value: string | number | null, numeric: boolean): string {
  if (value === null) return NIL;
  return typeof value === 'number' || !numeric ? escapeScalar(value) : escapeHtml(value);
}

export function renderComparison(block: ComparisonBlock): string {
  const numeric = block.numeric ?? block.rows.some((row) => typeof row.left === 'number' || typeof row.right === 'number');
  const valueClass = numeric ? ' class="r num"' : '';
  const hasDelta = block.rows.some((row) => row.delta !== undefined);
  const side = (part: ComparisonBlock['left']) =>
    `<th scope="col"${valueClass}>${escapeHtml(part.label)}${part.caption ? `<span class="th-caption">${escapeHtml(part.caption)}</span>` : ''}</th>`;
  const head = `<tr><th scope="col"><span class="sr-only">Measure</span></th>${side(block.left)}${side(block.right)}${hasDelta ? `<th scope="col"${valueClass}>Change</th>` : ''}</tr>`;
  const rows = block.rows
    .map((row) => {
      const note = row.note ? `<span class="row-note">${escapeHtml(row.note)}</span>` : '';
      const delta = hasDelta
        ? `<td${valueClass}>${row.delta !== undefined ? `<span class="delta-pill${toneClass(row.tone ?? 'neutral')}">${escapeScalar(row.delta)}</span>` : ''}</td>`
        : '';
      return (
        `<tr${row.tone && !hasDelta ? ` class="${toneClass(row.tone).trim()}"` : ''}><th scope="row">${escapeHtml(row.label)}${note}</th>` +
        `<td${valueClass}>${comparisonValue(row.left, numeric)}</td><td${valueClass}>${comparisonValue(row.right, numeric)}</td>${delta}</tr>`
      );
    })
    .join('');
  // Focusable, so a keyboard can scroll it sideways on a phone.
  return `<div class="tbl-scroll" tabindex="0" role="region" aria-label="${escapeAttr(block.title ?? 'Comparison')}"><table class="tbl comparison"><thead>${head}</thead><tbody>${rows}</tbody></table></div>`;
}

export function renderStatusMatrix(block: StatusMatrixBlock): string {
  const head = block.columns
    .map((column) =>
      column.short
        ? `<th scope="col" class="c"><abbr title="${escapeAttr(column.label)}">${escapeHtml(column.short)}</abbr></th>`
        : `<th scope="col" class="c">${escapeHtml(column.label)}</th>`,
    )
    .join('');
  const rows = block.rows
    .map((row) => {
      const cells = block.columns
        .map((column, index) => {
          const cell = row.cells[index];
          if (!cell) return `<td class="c"><span class="sm-cell empty" aria-label="no status">·</span></td>`;
          const words = [column.label, cell.label, cell.note].filter(Boolean).join(': ');
          const title = cell.note ? ` title="${escapeAttr(cell.note)}"` : '';
          return (
            `<td class="c"><span class="sm-cell${toneClass(cell.tone ?? 'neutral')}${cell.label ? ' labelled' : ''}"${title}>` +
            `${cell.label ? escapeHtml(cell.label) : ''}<span class="sr-only">${escapeHtml(words || cell.tone || 'status')}</span></span></td>`
          );
        })
        .join('');
      return `<tr><th scope="row">${escapeHtml(row.label)}${row.note ? `<span class="row-note">${escapeHtml(row.note)}</span>` : ''}</th>${cells}</tr>`;
    })
    .join('');
  const legend = (block.legend ?? [])
    .map((item) => `<li><span class="dot${toneClass(item.tone)}"></span>${escapeHtml(item.label)}</li>`)
    .join('');
  return (
    `<div class="tbl-scroll" tabindex="0" role="region" aria-label="${escapeAttr(block.title ?? 'Status matrix')}"><table class="tbl status-matrix"><thead><tr><th scope="col"><span class="sr-only">Item</span></th>${head}</tr></thead><tbody>${rows}</tbody></table></div>` +
    (legend ? `<ul class="legend">${legend}</ul>` : '')
  );
}
