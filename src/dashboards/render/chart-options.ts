/**
 * ECharts options generated from chart, heatmap and gauge blocks. Colours are sentinels (see
 * theme-colors.ts) so the stylesheet can theme the SVG; the spec's `option` is merged over the result.
 */
import { textWidth } from './echarts-ssr.js';
import type { ChartBlock, GaugeBlock, HeatmapBlock, Tone } from '../spec-schema.js';
import { formatNumber } from './escape.js';
import { extent, longestLength } from './numbers.js';
import { inkSentinel, seriesSentinel, toneSentinel } from './theme-colors.js';

export type ChartKind = NonNullable<ChartBlock['kind']>;

/**
 * How much ECharts is asked to draw. It takes about 0.1 ms per bar, line point or radar value and
 * more per scatter symbol, and each chart is drawn twice (laptop and phone widths), so past these a
 * chart would take seconds of the page's 20 s: measured, 10,000 pie slices 7 s, a radar of 10,000
 * axes 20 s, 100,000 scatter points 5 s, 1,000 series 1 s.
 */
const MAX_SLICES = 24;
const MAX_SERIES = 200;
const MAX_RADAR_AXES = 100;
const MAX_DRAWN_VALUES = 20_000;
/** Line and bar series are sampled to about this many values (twice the widest drawing). */
const SAMPLED_LENGTH = 2_400;
/**
 * A chart's own `option` holds at most this much JSON: about 20,000 [x, y] points, as many as a chart
 * plots from `series`. Data put there is drawn as it is, unsampled.
 */
const MAX_OPTION_JSON_BYTES = 512 * 1024;

/**
 * ECharts lays text out with Arial's character widths (there is no font measuring on the server), so
 * charts use Arial-metric fonts: labels then fit exactly where ECharts placed them. Unquoted: ECharts
 * writes the list into a double-quoted style attribute.
 */
export const FONT_FAMILY = 'Helvetica, Arial, Liberation Sans, Nimbus Sans, sans-serif';

type Option = Record<string, unknown>;

/** 1200 → 1.2k: axis labels stay short on narrow charts. From 1e15 on, an exponent (see formatNumber). */
export function compactNumber(value: number): string {
  const magnitude = Math.abs(value);
  if (magnitude >= 1e15 || !Number.isFinite(value)) return formatNumber(value);
  if (magnitude >= 1e12) return `${trimZeros(value / 1e12)}T`;
  if (magnitude >= 1e9) return `${trimZeros(value / 1e9)}B`;
  if (magnitude >= 1e6) return `${trimZeros(value / 1e6)}M`;
  if (magnitude >= 1e4) return `${trimZeros(value / 1e3)}k`;
  return formatNumber(value);
}

function trimZeros(value: number): string {
  return value.toFixed(1).replace(/\.0$/, '');
}

function withUnit(value: number, unit: string | undefined): string {
  if (!unit) return formatNumber(value);
  return unit === '%' ? `${formatNumber(value)}%` : `${formatNumber(value)} ${unit}`;
}

function seriesColor(tone: Tone | undefined, index: number): string {
  return tone ? toneSentinel(tone) : seriesSentinel(index);
}

const textStyle = { color: inkSentinel('text'), fontFamily: FONT_FAMILY, fontSize: 12 };
const mutedText = { color: inkSentinel('muted'), fontFamily: FONT_FAMILY, fontSize: 11 };

function baseOption(): Option {
  return { animation: false, textStyle, backgroundColor: 'transparent' };
}

function legendOption(show: boolean, position: 'top' | 'bottom' = 'top'): Option {
  return {
    show,
    type: 'plain',
    [position]: 0,
    left: 'center',
    icon: 'roundRect',
    itemWidth: 10,
    itemHeight: 10,
    itemGap: 18,
    textStyle: { ...textStyle, fontSize: 12 },
  };
}

function valueAxis(unit: string | undefined): Option {
  return {
    type: 'value',
    name: unit && unit !== '%' ? unit : undefined,
    nameTextStyle: mutedText,
    nameGap: 10,
    axisLine: { show: false },
    axisTick: { show: false },
    axisLabel: { ...mutedText, formatter: (value: number) => (unit === '%' ? `${compactNumber(value)}%` : compactNumber(value)) },
    splitLine: { lineStyle: { color: inkSentinel('grid') } },
  };
}

function categoryAxis(categories: string[], narrow: boolean): Option {
  return {
    type: 'category',
    data: categories,
    axisLine: { lineStyle: { color: inkSentinel('axis') } },
    axisTick: { show: false },
    axisLabel: { ...mutedText, hideOverlap: true, ...(narrow ? { interval: 'auto' } : {}) },
  };
}

export interface ChartLayout {
  width: number;
  height: number;
}

/*
 * A legend wraps onto as many rows as its names need. The drawing grows by the rows past the first
 * (see legendExtraHeight), so the plot keeps the size the block asked for instead of the legend being
 * drawn over it. Names are measured as ECharts measures them when it lays the legend out.
 */
const LEGEND_FONT = `12px ${FONT_FAMILY}`;
const LEGEND_ICON_WIDTH = 10 + 5;
const LEGEND_ITEM_GAP = 18;
const LEGEND_ROW_HEIGHT = 14;
const LEGEND_PADDING = 5;

function legendRowCount(names: readonly string[], width: number): number {
  const available = width - 2 * LEGEND_PADDING;
  let rows = 1;
  let line = 0;
  for (const name of names) {
    const item = LEGEND_ICON_WIDTH + textWidth(name, LEGEND_FONT);
    if (line > 0 && line + LEGEND_ITEM_GAP + item > available) {
      rows += 1;
      line = item;
    } else {
      line = line > 0 ? line + LEGEND_ITEM_GAP + item : item;
    }
  }
  return rows;
}

/** The names a chart's legend shows, or none when it has no legend. */
function legendNames(block: ChartBlock, width: number): string[] {
  const kind = chartKindOf(block);
  const series = block.series ?? [];
  switch (kind) {
    case 'pie':
    case 'donut':
      return (block.legend ?? width < 420) ? sliceData(block).map((slice) => slice.name) : [];
    case 'funnel':
      return block.legend ? sliceData(block).map((slice) => slice.name) : [];
    default:
      return (block.legend ?? series.length > 1) ? series.map((item) => item.name) : [];
  }
}

/** How much taller than the block's height a chart is drawn, for the legend rows past the first. */
export function legendExtraHeight(block: ChartBlock, width: number): number {
  const names = legendNames(block, width);
  if (names.length === 0) return 0;
  return (legendRowCount(names, width) - 1) * (LEGEND_ROW_HEIGHT + LEGEND_ITEM_GAP);
}

/** Which generated series a block's series turn into, per kind. */
function cartesianSeries(block: ChartBlock, kind: ChartKind): Option[] {
  const stacked = block.stacked ?? kind === 'barStacked';
  const many = (block.categories?.length ?? 0) > 40;
  return (block.series ?? []).map((series, index) => {
    const color = seriesColor(series.tone, index);
    const common: Option = { name: series.name, data: series.data, color, emphasis: { disabled: true } };
    if (stacked) common.stack = 'total';
    switch (kind) {
      case 'line':
      case 'area':
        return {
          ...common,
          type: 'line',
          showSymbol: !many && series.data.length <= 14,
          symbolSize: 5,
          // More points than pixels are thinned to the line's shape (ECharts samples only then).
          sampling: 'lttb',
          lineStyle: { width: 2, color },
          itemStyle: { color },
          ...(kind === 'area' ? { areaStyle: { opacity: stacked ? 0.35 : 0.16, color } } : {}),
        };
      case 'scatter':
        return { ...common, type: 'scatter', symbolSize: 9, itemStyle: { color, opacity: 0.85 } };
      default: {
        const horizontal = kind === 'barHorizontal';
        return {
          ...common,
          type: 'bar',
          barMaxWidth: 28,
          // Bars thinner than a pixel: one per extreme, or a million of them would fill the SVG.
          sampling: 'minmax',
          itemStyle: { color, borderRadius: stacked ? 0 : horizontal ? [0, 3, 3, 0] : [3, 3, 0, 0] },
        };
      }
    }
  });
}

function chartKindOf(block: ChartBlock): ChartKind {
  return block.kind ?? 'bar';
}

/** Pie, donut and funnel draw the first series' values as slices, with no axes. */
export function drawsSlices(kind: ChartKind): boolean {
  return kind === 'pie' || kind === 'donut' || kind === 'funnel';
}

/** Category names for kinds that plot one value per category (pie, donut, funnel). */
function sliceNames(block: ChartBlock, count: number): string[] {
  return Array.from({ length: count }, (_, index) => block.categories?.[index] ?? `Item ${index + 1}`);
}

type Slice = { name: string; value: number; itemStyle: Option };

function sliceData(block: ChartBlock): Slice[] {
  const first = block.series?.[0];
  const values = first?.data ?? [];
  const names = sliceNames(block, values.length);
  const slices: Slice[] = [];
  values.forEach((value, index) => {
    if (value === null) return;
    slices.push({ name: names[index] ?? '', value, itemStyle: { color: seriesSentinel(index) } });
  });
  return groupSmallSlices(slices);
}

/**
 * Past MAX_SLICES, the largest slices keep their place and the rest become one "Other" slice: nobody
 * reads a thousandth slice, and ECharts takes seconds to lay out 10,000 of them (20 s for a radar).
 */
function groupSmallSlices(slices: Slice[]): Slice[] {
  if (slices.length <= MAX_SLICES) return slices;
  const kept = MAX_SLICES - 1;
  const sorted = Float64Array.from(slices, (slice) => slice.value).sort();
  const threshold = sorted[sorted.length - kept] ?? -Infinity;
  let above = 0;
  for (const slice of slices) if (slice.value > threshold) above += 1;
  let tiesLeft = kept - above;
  const result: Slice[] = [];
  let other = 0;
  for (const slice of slices) {
    if (slice.value > threshold || (slice.value === threshold && tiesLeft-- > 0)) result.push(slice);
    else other += slice.value;
  }
  result.push({ name: `Other (${formatNumber(slices.length - kept)})`, value: other, itemStyle: { color: toneSentinel('neutral') } });
  return result;
}

function pieOption(block: ChartBlock, layout: ChartLayout, donut: boolean): Option {
  const slices = sliceData(block);
  const narrow = layout.width < 420;
  const showLegend = block.legend ?? narrow;
  const total = slices.reduce((sum, slice) => sum + slice.value, 0);
  const radius = narrow ? 36 : 40;
  // Sized on the block's own height: the rows of a long legend are drawn below it.
  const height = layout.height - legendExtraHeight(block, layout.width);
  const base = Math.min(layout.width, height) / 2;
  const px = (percent: number) => Math.round((base * percent) / 100);
  return {
    ...baseOption(),
    legend: legendOption(showLegend, 'bottom'),
    title: donut
      ? {
          text: compactNumber(total),
          subtext: block.unit ?? 'total',
          left: 'center',
          top: Math.round(height * (showLegend ? 0.38 : 0.42)),
          textAlign: 'center',
          textStyle: { ...textStyle, fontSize: 22, fontWeight: 600 },
          subtextStyle: mutedText,
          itemGap: 4,
        }
      : undefined,
    series: [
      {
        type: 'pie',
        name: block.series?.[0]?.name,
        radius: donut ? [px(radius + 10), px(radius + 28)] : [0, px(radius + 26)],
        center: ['50%', Math.round(height * (showLegend ? 0.45 : 0.5))],
        data: slices,
        emphasis: { disabled: true },
        itemStyle: { borderColor: inkSentinel('surface'), borderWidth: 2, borderRadius: donut ? 4 : 2 },
        label: narrow
          ? { show: false }
          : {
              show: true,
              color: inkSentinel('text'),
              fontFamily: FONT_FAMILY,
              fontSize: 11,
              formatter: (params: { name: string; percent: number }) => `${params.name}  ${params.percent < 1 ? '<1' : Math.round(params.percent)}%`,
            },
        labelLine: { lineStyle: { color: inkSentinel('axis') }, length: 8, length2: 8 },
      },
    ],
  };
}

function funnelOption(block: ChartBlock, layout: ChartLayout): Option {
  const slices = sliceData(block).sort((a, b) => b.value - a.value);
  const showLegend = block.legend ?? false;
  // Labels sit to the right of the funnel: inside, the narrow stages would cut them off.
  return {
    ...baseOption(),
    legend: legendOption(showLegend, 'bottom'),
    series: [
      {
        type: 'funnel',
        name: block.series?.[0]?.name,
        left: '4%',
        width: '52%',
        top: 8,
        bottom: showLegend ? 36 + legendExtraHeight(block, layout.width) : 8,
        minSize: '14%',
        gap: 3,
        data: slices,
        emphasis: { disabled: true },
        itemStyle: { borderColor: inkSentinel('surface'), borderWidth: 1 },
        labelLine: { show: true, length: 12, lineStyle: { color: inkSentinel('axis') } },
        label: {
          show: true,
          position: 'right',
          color: inkSentinel('text'),
          fontFamily: FONT_FAMILY,
          fontSize: 12,
          formatter: (params: { name: string; value: number }) => `${params.name}  ${withUnit(params.value, block.unit)}`,
        },
      },
    ],
  };
}

function radarOption(block: ChartBlock, layout: ChartLayout): Option {
  const series = block.series ?? [];
  let low = 0;
  let high = 0;
  for (const item of series) {
    const range = extent(item.data);
    if (range) {
      low = Math.min(low, range.min);
      high = Math.max(high, range.max);
    }
  }
  const scale = { min: low < 0 ? -niceCeiling(-low) : 0, max: niceCeiling(high) };
  const names = categoryNames(block);
  const showLegend = block.legend ?? series.length > 1;
  const radarHeight = layout.height - legendExtraHeight(block, layout.width);
  return {
    ...baseOption(),
    legend: legendOption(showLegend, 'bottom'),
    radar: {
      // One axis per position any series reaches, named by the categories where they are given.
      indicator: names.map((name) => ({ name, ...scale })),
      // Sized on the block's own height: the rows of a long legend are drawn below it.
      radius: Math.round((Math.min(layout.width, radarHeight) / 2) * (layout.width < 420 ? 0.58 : 0.66)),
      center: ['50%', Math.round(radarHeight * (showLegend ? 0.46 : 0.5))],
      axisName: { color: inkSentinel('muted'), fontFamily: FONT_FAMILY, fontSize: 11 },
      axisLine: { lineStyle: { color: inkSentinel('axis') } },
      splitLine: { lineStyle: { color: inkSentinel('grid') } },
      splitArea: { show: false },
    },
    series: [
      {
        type: 'radar',
        emphasis: { disabled: true },
        symbolSize: 4,
        // ECharts cannot place values on a radar without axes (series whose data are all empty).
        data: (names.length > 0 ? series : []).map((item, index) => {
          const color = seriesColor(item.tone, index);
          return {
            name: item.name,
            value: item.data.map((value) => value ?? 0),
            lineStyle: { color, width: 2 },
            itemStyle: { color },
            areaStyle: { color, opacity: 0.14 },
          };
        }),
      },
    ],
  };
}

function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) {
    if (step * magnitude >= value) return step * magnitude;
  }
  return 10 * magnitude;
}

function cartesianOption(block: ChartBlock, kind: ChartKind, layout: ChartLayout): Option {
  const series = cartesianSeries(block, kind);
  const showLegend = block.legend ?? series.length > 1;
  const horizontal = kind === 'barHorizontal';
  const narrow = layout.width < 420;
  const categoryAxisOption = categoryAxis(categoryNames(block), narrow);
  const valueAxisOption = valueAxis(block.unit);
  if (horizontal) {
    categoryAxisOption.inverse = true;
    // The unit goes under a horizontal value axis: at its end it would run off the chart.
    Object.assign(valueAxisOption, { nameLocation: 'middle', nameGap: 24 });
  }
  return {
    ...baseOption(),
    legend: legendOption(showLegend),
    grid: {
      left: 4,
      right: horizontal ? 24 : 18,
      top: showLegend ? 40 + legendExtraHeight(block, layout.width) : block.unit && !horizontal ? 28 : 12,
      bottom: horizontal && block.unit ? 26 : 4,
      containLabel: true,
    },
    xAxis: horizontal ? valueAxisOption : { ...categoryAxisOption, boundaryGap: kind !== 'line' && kind !== 'area' },
    yAxis: horizontal ? categoryAxisOption : valueAxisOption,
    series,
  };
}

/** A name for every position a series reaches: the block's categories, then "4", "5", … where they run out. */
export function categoryNames(block: ChartBlock): string[] {
  const categories = block.categories ?? [];
  const length = longestLength((block.series ?? []).map((series) => series.data), categories.length);
  return Array.from({ length }, (_, index) => categories[index] ?? String(index + 1));
}

/** Why this chart is too much to draw in the time a page has, or null. Pies group their small slices instead. */
export function tooMuchToDraw(block: ChartBlock): string | null {
  if (block.option !== undefined) {
    const bytes = Buffer.byteLength(JSON.stringify(block.option));
    if (bytes > MAX_OPTION_JSON_BYTES) {
      return `its \`option\` is ${formatKilobytes(bytes)} of JSON, and a chart's option may be at most ${formatKilobytes(MAX_OPTION_JSON_BYTES)} (about 20,000 points); put the data in \`series\`, which is sampled to fit the chart, or plot fewer points`;
    }
  }
  const kind = chartKindOf(block);
  if (drawsSlices(kind)) return null;
  const series = block.series ?? [];
  if (series.length > MAX_SERIES) return `it has ${formatNumber(series.length)} series, and a chart draws at most ${MAX_SERIES}`;
  let drawn = 0;
  if (kind === 'radar') {
    const axes = categoryNames(block).length;
    if (axes > MAX_RADAR_AXES) return `it has ${formatNumber(axes)} axes, and a radar chart draws at most ${MAX_RADAR_AXES}`;
    drawn = axes * series.length;
  } else {
    for (const item of series) drawn += kind === 'scatter' ? item.data.length : Math.min(item.data.length, SAMPLED_LENGTH);
  }
  return drawn > MAX_DRAWN_VALUES ? `it would plot ${formatNumber(drawn)} values, and a chart plots at most ${formatNumber(MAX_DRAWN_VALUES)}` : null;
}

function formatKilobytes(bytes: number): string {
  return `${formatNumber(Math.ceil(bytes / 1024))} KB`;
}

export function chartOption(block: ChartBlock, layout: ChartLayout): Option {
  const kind = chartKindOf(block);
  switch (kind) {
    case 'pie':
      return pieOption(block, layout, false);
    case 'donut':
      return pieOption(block, layout, true);
    case 'funnel':
      return funnelOption(block, layout);
    case 'radar':
      return radarOption(block, layout);
    default:
      return cartesianOption(block, kind, layout);
  }
}

export function chartKind(block: ChartBlock): ChartKind {
  return chartKindOf(block);
}

/** Finite values of a heatmap, for the colour scale and the summary. */
export function heatmapRange(block: HeatmapBlock): { min: number; max: number } | null {
  let min = Infinity;
  let max = -Infinity;
  for (const row of block.values) {
    for (const value of row) {
      if (value === null) continue;
      if (value < min) min = value;
      if (value > max) max = value;
    }
  }
  return min === Infinity ? null : { min, max };
}

/** Cell opacity from the lowest value to the highest (see onPaleCell and onStrongCell in theme-colors.ts). */
const HEAT_OPACITY: [number, number] = [0.08, 0.8];
const STRONG_CELL_OPACITY = 0.68;

export function heatmapOption(block: HeatmapBlock, layout: ChartLayout): Option {
  const data: Array<[number, number, number]> = [];
  block.values.forEach((row, y) => {
    row.forEach((value, x) => {
      if (value !== null && x < block.xLabels.length && y < block.yLabels.length) data.push([x, y, value]);
    });
  });
  const range = heatmapRange(block) ?? { min: 0, max: 1 };
  const cellWidth = layout.width / Math.max(1, block.xLabels.length);
  const cellHeight = layout.height / Math.max(1, block.yLabels.length);
  const showLabels = cellWidth >= 34 && cellHeight >= 20;
  const span = range.max === range.min ? 1 : range.max - range.min;
  const opacityOf = (value: number) => HEAT_OPACITY[0] + (HEAT_OPACITY[1] - HEAT_OPACITY[0]) * ((value - range.min) / span);
  const formatter = (params: { value: [number, number, number] }) => compactNumber(params.value[2]);
  return {
    ...baseOption(),
    grid: { left: 4, right: 8, top: 8, bottom: 4, containLabel: true },
    xAxis: { ...categoryAxis(block.xLabels, layout.width < 420), splitArea: { show: false }, axisLine: { show: false } },
    yAxis: { ...categoryAxis(block.yLabels, false), inverse: true, axisLine: { show: false } },
    visualMap: {
      show: false,
      min: range.min,
      max: range.max === range.min ? range.min + 1 : range.max,
      calculable: false,
      inRange: { opacity: HEAT_OPACITY },
      // The colour stays a sentinel; only opacity varies, so the theme decides the hue.
      target: { inRange: { opacity: HEAT_OPACITY } },
    },
    series: [
      {
        type: 'heatmap',
        // Each number in the ink its cell's strength calls for (see onPaleCell and onStrongCell).
        data: showLabels
          ? data.map(([x, y, value]) => ({ value: [x, y, value], label: { color: inkSentinel(opacityOf(value) >= STRONG_CELL_OPACITY ? 'onStrongCell' : 'onPaleCell') } }))
          : data,
        emphasis: { disabled: true },
        itemStyle: { color: toneSentinel('info'), borderColor: inkSentinel('surface'), borderWidth: 2, borderRadius: 3 },
        // A cell's label takes the cell's opacity unless it has its own: the numbers stay at full strength.
        label: showLabels ? { show: true, opacity: 1, fontFamily: FONT_FAMILY, fontSize: 11, formatter } : { show: false },
      },
    ],
  };
}

export function gaugeBounds(block: GaugeBlock): { min: number; max: number } {
  const min = block.min ?? 0;
  const max = block.max ?? (block.unit === '%' ? 100 : Math.max(100, niceCeiling(block.value)));
  return max > min ? { min, max } : { min, max: min + 1 };
}

/** `size`, or smaller so that `text` fits in `width` (never below 11 px). */
function fittedFontSize(text: string, size: number, width: number): number {
  const measured = textWidth(text, `650 ${size}px ${FONT_FAMILY}`);
  return measured <= width ? size : Math.max(11, Math.floor((size * width) / measured));
}

export function gaugeOption(block: GaugeBlock, layout: ChartLayout): Option {
  const { min, max } = gaugeBounds(block);
  const span = max - min;
  const bands = [...(block.bands ?? [])].sort((a, b) => a.upTo - b.upTo);
  const bandStops: Array<[number, string]> = bands.map((band) => [Math.min(1, Math.max(0, (band.upTo - min) / span)), toneSentinel(band.tone)]);
  if (bandStops.length > 0 && (bandStops[bandStops.length - 1]?.[0] ?? 1) < 1) bandStops.push([1, inkSentinel('track')]);
  const tone = block.tone ?? toneForValue(block.value, bands) ?? 'info';
  const thickness = Math.round(Math.max(10, Math.min(layout.width, layout.height) / 13));
  const hasBands = bandStops.length > 0;
  const valueFontSize = Math.round(Math.max(20, Math.min(40, layout.height / 6.5)));
  // The value is written inside the arc: as wide as the dial's opening, less some air.
  const dialInside = 2 * (0.94 * (Math.min(layout.width, layout.height) / 2) - thickness) * 0.85;
  return {
    ...baseOption(),
    series: [
      {
        type: 'gauge',
        min,
        max,
        startAngle: 215,
        endAngle: -35,
        radius: '94%',
        center: ['50%', '57%'],
        // With bands the arc shows them and a needle shows the value; without, the arc fills up to it.
        axisLine: { roundCap: !hasBands, lineStyle: { width: hasBands ? Math.round(thickness * 0.7) : thickness, color: hasBands ? bandStops : [[1, inkSentinel('track')]] } },
        progress: { show: !hasBands, width: thickness, roundCap: true, itemStyle: { color: toneSentinel(tone) } },
        pointer: hasBands
          ? { show: true, icon: 'path://M2,0 L4,0 L3.4,100 L0.6,100 Z', length: '62%', width: 6, offsetCenter: [0, 0], itemStyle: { color: inkSentinel('text') } }
          : { show: false },
        anchor: hasBands ? { show: true, size: 12, showAbove: true, itemStyle: { color: inkSentinel('surface'), borderColor: inkSentinel('text'), borderWidth: 3 } } : { show: false },
        axisTick: { show: false },
        splitLine: { show: false },
        axisLabel: { show: false },
        title: { show: Boolean(block.label), offsetCenter: [0, hasBands ? '62%' : '36%'], color: inkSentinel('muted'), fontFamily: FONT_FAMILY, fontSize: 12 },
        detail: {
          valueAnimation: false,
          offsetCenter: [0, hasBands ? '40%' : '2%'],
          color: hasBands ? toneSentinel(tone) : inkSentinel('text'),
          fontFamily: FONT_FAMILY,
          fontSize: fittedFontSize(withUnit(block.value, block.unit), hasBands ? Math.round(valueFontSize * 0.8) : valueFontSize, dialInside),
          fontWeight: 650,
          formatter: () => withUnit(block.value, block.unit),
        },
        data: [{ value: Math.min(max, Math.max(min, block.value)), name: block.label ?? '' }],
      },
    ],
  };
}

/** The tone of the band the value falls in, when the block gives bands but no tone. */
function toneForValue(value: number, bands: ReadonlyArray<{ upTo: number; tone: Tone }>): Tone | undefined {
  for (const band of bands) if (value <= band.upTo) return band.tone;
  return bands[bands.length - 1]?.tone;
}

/** Steps an axis fixed at both ends may take: 1, 2, 2.5 and 5 times a power of ten. */
function evenStep(min: number, max: number): number | null {
  const span = max - min;
  if (!(span > 0) || !Number.isFinite(span)) return null;
  const close = (value: number) => Math.abs(value - Math.round(value)) < 1e-6;
  for (let exponent = Math.ceil(Math.log10(span)); exponent > Math.log10(span) - 4; exponent -= 1) {
    for (const factor of [5, 2.5, 2, 1]) {
      const step = factor * 10 ** exponent;
      const count = span / step;
      if (count >= 3 && count <= 6 && close(count) && close(min / step)) return step;
    }
  }
  return null;
}

/**
 * A value axis an `option` fixes at both ends (`min: 99.85, max: 100`) gets ticks from end to end in
 * equal steps: left to ECharts, the steps start at a round number past `min`, so the first gap is short
 * and its two labels touch.
 */
export function evenFixedAxes(option: Option): Option {
  const even = (axis: unknown): unknown => {
    if (!axis || typeof axis !== 'object') return axis;
    const fields = axis as Option;
    if (fields.type !== undefined && fields.type !== 'value') return axis;
    if (typeof fields.min !== 'number' || typeof fields.max !== 'number' || fields.interval !== undefined) return axis;
    const step = evenStep(fields.min, fields.max) ?? (fields.max - fields.min) / 4;
    return step > 0 && Number.isFinite(step) ? { ...fields, interval: step } : axis;
  };
  const out: Option = { ...option };
  for (const key of ['xAxis', 'yAxis'] as const) {
    if (Array.isArray(option[key])) out[key] = (option[key] as unknown[]).map(even);
    else if (option[key] !== undefined) out[key] = even(option[key]);
  }
  return out;
}

/** Roughly how wide a mark line's label is drawn at 12 px: its formatter with a value of six characters. */
function markLabelWidth(label: Option | undefined): number {
  const formatter = typeof label?.formatter === 'string' ? label.formatter.replace(/\{[a-z]\}/g, '000000') : '000000';
  return Math.ceil(formatter.length * 6.6) + 10;
}

/**
 * A mark line's label goes past the line's end, outside the plot, with the room it needs kept on the
 * right: drawn inside the end (ECharts' `insideEnd…` positions) it sits on the last bars.
 */
export function roomForMarkLabels(option: Option): Option {
  const series = Array.isArray(option.series) ? (option.series as Option[]) : [];
  let room = 0;
  const placed = series.map((item) => {
    const markLine = item?.markLine as Option | undefined;
    if (!markLine || typeof markLine !== 'object') return item;
    const label = (markLine.label ?? {}) as Option;
    if (label.show === false) return item;
    if (label.position !== undefined && !(typeof label.position === 'string' && label.position.startsWith('insideEnd')) && label.position !== 'end') return item;
    room = Math.max(room, markLabelWidth(label));
    return { ...item, markLine: { ...markLine, label: { ...label, position: 'end' } } };
  });
  if (room === 0 || Array.isArray(option.grid) || !option.grid || typeof option.grid !== 'object') return option;
  const grid = option.grid as Option;
  const right = typeof grid.right === 'number' ? grid.right : 0;
  return { ...option, series: placed, grid: { ...grid, right: Math.max(right, room) } };
}
