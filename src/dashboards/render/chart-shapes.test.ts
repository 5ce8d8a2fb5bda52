/**
 * Every chart kind with the shapes of data spec 1 allows but a hand-written chart rarely has: no
 * categories, no or empty series, series longer or shorter than the categories, negative values.
 */
import { describe, expect, it } from 'vitest';
import type { ChartBlock } from '../spec-schema.js';
import { renderDashboard } from './render-dashboard.js';
import { inkSentinel } from './theme-colors.js';

const KINDS: ReadonlyArray<NonNullable<ChartBlock['kind']>> = ['bar', 'barStacked', 'barHorizontal', 'line', 'area', 'pie', 'donut', 'scatter', 'radar', 'funnel'];

const SHAPES: Record<string, Omit<ChartBlock, 'type' | 'kind'>> = {
  'no categories': { series: [{ name: 'a', data: [1, 2, 3] }, { name: 'b', data: [4, 5] }] },
  'no series': { categories: ['x', 'y'] },
  'an empty list of series': { categories: ['x', 'y'], series: [] },
  'a series with no data': { categories: ['x', 'y'], series: [{ name: 'a', data: [] }] },
  'a series with no data and no categories': { series: [{ name: 'a', data: [] }] },
  'only nulls': { categories: ['x', 'y'], series: [{ name: 'a', data: [null, null] }] },
  'more data than categories': { categories: ['x'], series: [{ name: 'a', data: [1, 2, 3] }] },
  'more categories than data': { categories: ['x', 'y', 'z', 'w'], series: [{ name: 'a', data: [1] }] },
  'negative and positive values': { series: [{ name: 'a', data: [-3, 7, 0.5] }] },
  nothing: {},
};

/** Shapes with no value to plot: the block says so instead of drawing bare axes. */
const NO_VALUES = new Set(['no series', 'an empty list of series', 'a series with no data', 'a series with no data and no categories', 'only nulls', 'nothing']);

function renderChart(block: ChartBlock): string {
  return renderDashboard({ slug: 'charts', title: 'Charts', sections: [{ blocks: [block] }] }, { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' }).html;
}

function svgTexts(html: string): string[] {
  const wide = /<div class="chart-svg v-wide">([\s\S]*?)<\/svg><\/div>/.exec(html)?.[1] ?? '';
  return [...wide.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((match) => match[1] ?? '');
}

describe('charts with every shape of data', () => {
  for (const kind of KINDS) {
    it.each(Object.entries(SHAPES))(`draws a ${kind} chart with %s, or says it has no data`, (shape, fields) => {
      const html = renderChart({ type: 'chart', kind, ...fields });
      expect(html).not.toContain('could not be drawn');
      if (NO_VALUES.has(shape)) {
        expect(html).toContain('<p class="blk-empty">No data to chart.</p>');
        expect(html).not.toContain('<svg');
      } else {
        expect(html).toContain('<div class="chart-svg v-wide"><svg');
      }
    });
  }

  it('gives a radar without categories one axis per value of its longest series, named 1, 2, 3', () => {
    const html = renderChart({ type: 'chart', kind: 'radar', series: [{ name: 'a', data: [1, 2, 3] }, { name: 'b', data: [4, 5] }] });
    expect(svgTexts(html)).toEqual(['1', '2', '3', 'a', 'b']);
    expect(html).toContain('<tr><th scope="row">3</th><td class="r">3</td><td class="r">no value</td></tr>');
  });

  it('draws a legend that wraps onto several rows below its plot area, the drawing taller by those rows', () => {
    const series = Array.from({ length: 14 }, (_, index) => ({ name: `Series with long name ${index}`, data: [index, index + 1] }));
    const html = renderChart({ type: 'chart', kind: 'line', span: 8, height: 260, series });
    // Two names to a row at this width: seven rows, six more than the block's height has room for.
    expect(html).toContain('viewBox="0 0 357 452"');
    const texts = svgTexts(html);
    expect(texts.filter((text) => text.startsWith('Series with long name'))).toHaveLength(14);
    const short = renderChart({ type: 'chart', kind: 'line', span: 8, height: 260, series: series.slice(0, 2) });
    expect(short).toContain('viewBox="0 0 357 260"');
  });

  it('names the positions a series reaches beyond its categories', () => {
    const html = renderChart({ type: 'chart', kind: 'bar', categories: ['x'], series: [{ name: 'a', data: [1, 2, 3] }] });
    expect(svgTexts(html)).toEqual(expect.arrayContaining(['x', '2', '3']));
    expect(html).toContain('Bar chart of 1 series over 1 category, x.');
    expect(html).toContain('<tr><th scope="row">3</th><td class="r">3</td></tr>');
  });

  it('groups the slices of a pie past the largest 23 into one "Other" slice', () => {
    const data = Array.from({ length: 30 }, (_, index) => (index === 0 ? 1 : 100 + index));
    const texts = svgTexts(renderChart({ type: 'chart', kind: 'pie', series: [{ name: 'a', data }] }));
    expect(texts).toHaveLength(24);
    expect(texts).toContain('Item 30  4%');
    expect(texts).not.toContain(expect.stringMatching(/^Item [1-7] /));
    expect(texts).toContain('Other (7)  19%');
  });

  it.each([
    ['a radar with 101 axes', { kind: 'radar', categories: Array.from({ length: 101 }, (_, index) => `c${index}`), series: [{ name: 'a', data: [1] }] }, 'it has 101 axes, and a radar chart draws at most 100'],
    ['201 series', { kind: 'line', series: Array.from({ length: 201 }, (_, index) => ({ name: `s${index}`, data: [index] })) }, 'it has 201 series, and a chart draws at most 200'],
    ['20,001 scatter points', { kind: 'scatter', series: [{ name: 'a', data: Array.from({ length: 20_001 }, (_, index) => index) }] }, 'it would plot 20,001 values, and a chart plots at most 20,000'],
    [
      '200,000 points in its own option',
      { kind: 'scatter', series: [{ name: 'a', data: [1] }], option: { xAxis: { type: 'value' }, series: [{ type: 'scatter', data: Array.from({ length: 200_000 }, (_, index) => [index, index % 1000]) }] } },
      'its `option` is 2,410 KB of JSON, and a chart&#39;s option may be at most 512 KB (about 20,000 points); put the data in `series`, which is sampled to fit the chart, or plot fewer points',
    ],
  ] as const)('says why it does not draw %s', (_name, fields, reason) => {
    const html = renderChart({ type: 'chart', ...fields } as ChartBlock);
    expect(html).toContain(`<p>This chart could not be drawn: ${reason}</p>`);
    expect(html).not.toContain('<svg');
  });

  it('says why it does not draw a small option whose labels come to megabytes of SVG', () => {
    const label = { show: true, formatter: 'x '.repeat(100), width: 30, overflow: 'break' };
    const option = { xAxis: { type: 'category' }, series: [{ type: 'bar', data: Array.from({ length: 2000 }, () => 1), label }] };
    const html = renderChart({ type: 'chart', kind: 'bar', series: [{ name: 'a', data: [1] }], option });
    const reasons = [...html.matchAll(/<p>This chart could not be drawn: ([^<]*)<\/p>/g)].map((match) => match[1]);
    // The wide drawing shows every label; the narrow one hides those that overlap, and fits.
    expect(html).toContain('<div class="chart-error v-wide"');
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason).toMatch(/^its drawing came to \d+ MB of SVG, and a chart may be at most 8 MB; its option asks for too many points, labels or too much text$/);
  });

  it.each([
    ['bar series on a pie, which has no axes', { kind: 'pie', option: { series: [{ type: 'bar' }] } }, 'xAxis &quot;0&quot; not found'],
    ['a custom series with no renderItem function', { kind: 'line', option: { series: [{ type: 'custom', renderItem: 'x' }] } }, 'renderItem is not a function'],
  ] as const)('passes on what ECharts says of an option it refuses: %s', (_name, fields, reason) => {
    const html = renderChart({ type: 'chart', series: [{ name: 'a', data: [1, 2] }], ...fields } as ChartBlock);
    expect(html).toContain(`<p>This chart could not be drawn: ${reason}</p>`);
  });

  it('says a pie with no values has no data, and describes shares of the positive values only', () => {
    expect(renderChart({ type: 'chart', kind: 'pie', series: [{ name: 'a', data: [] }] })).toContain('<p class="blk-empty">No data to chart.</p>');
    expect(renderChart({ type: 'chart', kind: 'pie', series: [{ name: 'a', data: [-3, 7, 0.5] }] })).toContain('Pie chart of a: Item 1 -3, Item 2 7 (93%), Item 3 0.5 (7%).');
  });
});

describe('heatmaps', () => {
  it('writes each cell’s number at full strength, dark on pale cells and in the strong cells’ own ink', () => {
    const html = renderDashboard(
      { slug: 'heat', title: 'Heat', sections: [{ blocks: [{ type: 'heatmap', title: 'Heat', xLabels: ['a', 'b', 'c'], yLabels: ['x'], values: [[1, 50, 100]] }] }] },
      { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' },
    ).html;
    const wide = /<div class="chart-svg v-wide">([\s\S]*?)<\/svg><\/div>/.exec(html)?.[1] ?? '';
    const numbers = Object.fromEntries([...wide.matchAll(/<text[^>]*>(1|50|100)<\/text>/g)].map((match) => [match[1], match[0]]));
    expect(Object.keys(numbers).sort()).toEqual(['1', '100', '50']);
    for (const text of Object.values(numbers)) expect(text).not.toMatch(/opacity/);
    expect(numbers['1']).toContain(`fill="${inkSentinel('onPaleCell')}"`);
    expect(numbers['50']).toContain(`fill="${inkSentinel('onPaleCell')}"`);
    expect(numbers['100']).toContain(`fill="${inkSentinel('onStrongCell')}"`);
  });
});

describe('gauges', () => {
  function valueFontSize(value: number, unit: string): number {
    const html = renderDashboard(
      { slug: 'gauge', title: 'Gauge', sections: [{ blocks: [{ type: 'gauge', title: 'Gauge', span: 6, value, min: 0, max: 1e9, unit }] }] },
      { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' },
    ).html;
    const text = /<text[^>]*style="font-size:(\d+)px;[^"]*font-weight:650[^>]*>([^<]*)<\/text>/.exec(html);
    return Number(text?.[1]);
  }

  it('writes a long value smaller, inside the dial, and a short one at its usual size', () => {
    const usual = valueFontSize(42, '%');
    expect(usual).toBeGreaterThanOrEqual(20);
    const long = valueFontSize(123_456_789, 'bytes');
    expect(long).toBeLessThan(usual);
    expect(long).toBeGreaterThanOrEqual(11);
  });
});
