/**
 * chart, heatmap and gauge: ECharts SVG drawn on the server at the block's laptop width, plus a
 * phone-width drawing for wide blocks (scaling a wide chart down would shrink its text to nothing).
 * Each chart is an image with an accessible name, a one-paragraph summary, and its data as a table and as CSV.
 */
import { hasCsv } from '../block-csv.js';
import type { ChartBlock, GaugeBlock, HeatmapBlock } from '../spec-schema.js';
import { categoryNames, chartKind, drawsSlices, gaugeBounds, heatmapRange, legendExtraHeight, tooMuchToDraw, type ChartKind } from './chart-options.js';
import { chartJob, type ChartFigureJob } from './chart-drawing.js';
import { chartError, type ChartWidths } from './chart-slots.js';
import { escapeAttr, escapeHtml, formatNumber, formatPercent } from './escape.js';
import { extent, longestLength, positiveShares } from './numbers.js';
import type { RenderContext } from './render-context.js';

/** Phones: 375 px minus page and card padding. */
const NARROW_WIDTH = 320;
/** Wider drawings than this get a phone variant. */
const NARROW_THRESHOLD = 440;
/** The drawing a page leaves out of a chart that has both widths, by the widths it carries. */
const LEFT_OUT: Record<ChartWidths, 'v-wide' | 'v-narrow' | null> = { both: null, wide: 'v-narrow', narrow: 'v-wide' };
/** Data tables beyond this many cells are left out (the summary still describes the data). */
const MAX_DATA_TABLE_CELLS = 2400;

const KIND_NAMES: Record<ChartKind, string> = {
  bar: 'Bar chart',
  barStacked: 'Stacked bar chart',
  barHorizontal: 'Horizontal bar chart',
  line: 'Line chart',
  area: 'Area chart',
  pie: 'Pie chart',
  donut: 'Donut chart',
  scatter: 'Scatter chart',
  radar: 'Radar chart',
  funnel: 'Funnel chart',
};

interface ChartFigure {
  kindClass: string;
  name: string;
  summary: string;
  /** The data as a table (empty when there is none, or too much to show). */
  dataTable: string;
  /** Whether the block's data downloads as CSV (see block-csv.ts). */
  downloadable: boolean;
  height: number;
  /** The drawing at a width (drawn later, in this thread or another: see chart-slots.ts). */
  jobAt: (width: number) => ChartFigureJob;
  /** A legend or scale drawn in HTML under the chart. */
  after?: string;
  /** Why the chart is not drawn at all (too much for ECharts in the time a page has). */
  refusal?: string | null;
}

function withUnit(value: number | null, unit: string | undefined): string {
  if (value === null) return 'no value';
  return unit ? (unit === '%' ? `${formatNumber(value)}%` : `${formatNumber(value)} ${unit}`) : formatNumber(value);
}

function drawing(figure: ChartFigure, width: number, variant: string, context: RenderContext): string {
  if (figure.refusal) return chartError(figure.refusal, variant, figure.height);
  return context.charts.place(chartJob(figure.jobAt(width)), variant, figure.height, context.blockPath);
}

function renderFigure(figure: ChartFigure, context: RenderContext): string {
  if (figure.refusal) context.noteProblem(`This chart is not drawn: ${figure.refusal}.`);
  const wide = Math.round(Math.max(260, Math.min(1200, context.placement.contentWidth)));
  const summaryId = context.nextId('chart-summary');
  const hasNarrow = wide > NARROW_THRESHOLD;
  // A refusal costs nothing to show at both widths; otherwise a page may carry only one (see ChartWidths).
  const leftOut = hasNarrow && !figure.refusal ? LEFT_OUT[context.chartWidths] : null;
  const variants = [leftOut === 'v-wide' ? context.charts.leaveOut('v-wide') : drawing(figure, wide, 'v-wide', context)];
  if (hasNarrow) variants.push(leftOut === 'v-narrow' ? context.charts.leaveOut('v-narrow') : drawing(figure, NARROW_WIDTH, 'v-narrow', context));
  const classes = `chart ${figure.kindClass}${hasNarrow ? ' has-narrow' : ''}${leftOut ? ` awaits-${leftOut.slice(2)}` : ''}`;
  return (
    `<figure class="${classes}">` +
    `<div class="chart-img" role="img" aria-label="${escapeAttr(figure.name)}" aria-describedby="${summaryId}" style="--chart-ratio:${wide}/${figure.height}">${variants.join('')}</div>` +
    (figure.after ?? '') +
    `<p class="sr-only" id="${summaryId}">${escapeHtml(figure.summary)}</p>` +
    dataSection(figure, context) +
    `</figure>`
  );
}

function dataTable(caption: string, head: string[], rows: string[][]): string {
  const cells = head.length * rows.length;
  if (cells === 0 || cells > MAX_DATA_TABLE_CELLS) return '';
  const headHtml = head.map((cell, index) => `<th${index === 0 ? '' : ' class="r"'} scope="col">${escapeHtml(cell)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${row.map((cell, index) => (index === 0 ? `<th scope="row">${escapeHtml(cell)}</th>` : `<td class="r">${escapeHtml(cell)}</td>`)).join('')}</tr>`)
    .join('');
  return `<table class="tbl compact"><caption class="sr-only">${escapeHtml(caption)}</caption><thead><tr>${headHtml}</tr></thead><tbody>${body}</tbody></table>`;
}

/** The figure's data under a "Data" disclosure, with the CSV link; only the link when the table would be too big. */
function dataSection(figure: ChartFigure, context: RenderContext): string {
  const csv =
    figure.downloadable && context.downloadBase
      ? `<a class="chart-csv" href="${escapeAttr(`${context.downloadBase}${context.blockPath}.csv`)}" download aria-label="${escapeAttr(`Download the data of ${figure.name} as CSV`)}">Download CSV</a>`
      : '';
  if (figure.dataTable) return `<details class="chart-data"><summary>Data</summary><div class="chart-data-scroll">${figure.dataTable}</div>${csv}</details>`;
  return csv ? `<p class="chart-data">${csv}</p>` : '';
}

function seriesSummary(name: string, data: ReadonlyArray<number | null>, unit: string | undefined): string {
  const range = extent(data);
  if (range === null) return `${name}: no values`;
  const first = data.find((value) => value !== null) ?? 0;
  const last = data.findLast((value) => value !== null) ?? 0;
  return `${name}: from ${withUnit(first, unit)} to ${withUnit(last, unit)}, low ${withUnit(range.min, unit)}, high ${withUnit(range.max, unit)}`;
}

function chartSummary(block: ChartBlock, kind: ChartKind): string {
  const series = block.series ?? [];
  const categories = block.categories ?? [];
  const intro = KIND_NAMES[kind];
  if (series.length === 0) return `${intro} with no data.`;
  if (drawsSlices(kind)) {
    const data = series[0]?.data ?? [];
    if (data.length === 0) return `${intro} of ${series[0]?.name ?? 'values'} with no values.`;
    // Shares are of the positive values: a negative value is no slice of the whole.
    const shareOf = positiveShares(data);
    const slices = data.slice(0, 12).map((value, index) => {
      const share = shareOf && value !== null && value >= 0 ? ` (${formatPercent(shareOf(value))})` : '';
      return `${categories[index] ?? `Item ${index + 1}`} ${withUnit(value, block.unit)}${share}`;
    });
    return `${intro} of ${series[0]?.name ?? 'values'}: ${slices.join(', ')}${data.length > 12 ? `, and ${data.length - 12} more` : ''}.`;
  }
  const range =
    categories.length > 1
      ? ` over ${categories.length} categories, ${categories[0]} to ${categories[categories.length - 1]}`
      : categories.length === 1
        ? ` over 1 category, ${categories[0]}`
        : '';
  const described = series.slice(0, 6).map((item) => seriesSummary(item.name, item.data, block.unit));
  return `${intro} of ${series.length} series${range}${block.stacked || kind === 'barStacked' ? ', stacked' : ''}. ${described.join('. ')}.`;
}

function chartDataTable(block: ChartBlock, name: string): string {
  const series = block.series ?? [];
  const length = longestLength(series.map((item) => item.data), block.categories?.length ?? 0);
  // Built only when it will be shown: a series of a million numbers would cost seconds for nothing.
  if (length * (series.length + 1) > MAX_DATA_TABLE_CELLS) return '';
  const rows = categoryNames(block).map((category, index) => [category, ...series.map((item) => withUnit(item.data[index] ?? null, block.unit))]);
  return dataTable(name, ['', ...series.map((item) => item.name)], rows);
}

const ROUND_KINDS = new Set<ChartKind>(['pie', 'donut', 'radar', 'funnel']);

export function renderChart(block: ChartBlock, context: RenderContext): string {
  const kind = chartKind(block);
  const name = block.title ? `${block.title} (${KIND_NAMES[kind].toLowerCase()})` : KIND_NAMES[kind];
  const height = block.height ?? (ROUND_KINDS.has(kind) ? 260 : 280);
  return renderFigure(
    {
      kindClass: `chart-${kind}`,
      name,
      summary: chartSummary(block, kind),
      dataTable: chartDataTable(block, name),
      downloadable: hasCsv(block),
      height,
      jobAt: (width) => ({ figure: 'chart', block, width, height: height + legendExtraHeight(block, width) }),
      refusal: tooMuchToDraw(block),
    },
    context,
  );
}

export function renderHeatmap(block: HeatmapBlock, context: RenderContext): string {
  const range = heatmapRange(block);
  const name = block.title ? `${block.title} (heatmap)` : 'Heatmap';
  let peak = '';
  let peakValue = -Infinity;
  block.values.forEach((row, y) =>
    row.forEach((value, x) => {
      if (value !== null && value > peakValue) {
        peakValue = value;
        peak = `${block.yLabels[y] ?? y + 1}, ${block.xLabels[x] ?? x + 1}`;
      }
    }),
  );
  const summary = range
    ? `Heatmap of ${block.yLabels.length} rows by ${block.xLabels.length} columns; values from ${withUnit(range.min, block.unit)} to ${withUnit(range.max, block.unit)}, highest at ${peak}.`
    : 'Heatmap with no values.';
  const rows = block.yLabels.map((label, y) => [label, ...block.xLabels.map((_, x) => withUnit(block.values[y]?.[x] ?? null, block.unit))]);
  const scale = range
    ? `<div class="heat-scale" aria-hidden="true"><span>${escapeHtml(withUnit(range.min, block.unit))}</span><span class="heat-ramp"></span><span>${escapeHtml(withUnit(range.max, block.unit))}</span></div>`
    : '';
  const height = block.height ?? Math.min(600, Math.max(160, block.yLabels.length * 30 + 40));
  return renderFigure(
    {
      kindClass: 'chart-heatmap',
      name,
      summary,
      dataTable: dataTable(name, ['', ...block.xLabels], rows),
      downloadable: hasCsv(block),
      height,
      jobAt: (width) => ({ figure: 'heatmap', block, width, height }),
      after: scale,
    },
    context,
  );
}

export function renderGauge(block: GaugeBlock, context: RenderContext): string {
  const { min, max } = gaugeBounds(block);
  const label = block.label ?? block.title ?? 'Gauge';
  const bands = (block.bands ?? []).map((band) => `${band.tone} up to ${withUnit(band.upTo, block.unit)}`).join(', ');
  const summary = `${label}: ${withUnit(block.value, block.unit)} on a scale from ${withUnit(min, block.unit)} to ${withUnit(max, block.unit)}${bands ? `; bands: ${bands}` : ''}.`;
  // A gauge is round: it never needs a phone drawing wider than it is tall.
  const height = block.height ?? 200;
  const saved = context.placement;
  context.placement = { ...saved, contentWidth: Math.min(saved.contentWidth, Math.max(260, height * 1.6)) };
  try {
    return renderFigure(
      { kindClass: 'chart-gauge', name: `${label} (gauge)`, summary, dataTable: '', downloadable: false, height, jobAt: (width) => ({ figure: 'gauge', block, width, height }) },
      context,
    );
  } finally {
    context.placement = saved;
  }
}
