import { describe, expect, it } from 'vitest';
import type { TableBlock } from '../spec-schema.js';
import { renderDashboard } from './render-dashboard.js';
import { MAX_SPARK_POINTS, describeTrend, renderSparkline } from './sparkline.js';

function linePoints(svg: string): Array<[number, number]> {
  const points = /<polyline class="spark-line" points="([^"]*)"/.exec(svg)?.[1] ?? '';
  return points.split(' ').map((point) => point.split(',').map(Number) as [number, number]);
}

/** 200 values: a slow wave with one spike up (index 37) and one down (index 151). */
const WAVE = Array.from({ length: 200 }, (_, index) => (index === 37 ? 500 : index === 151 ? -500 : Math.round(Math.sin(index / 9) * 40)));

describe('sparklines', () => {
  it('draws every value of a short series', () => {
    expect(linePoints(renderSparkline([1, 5, 3, 4], 'trend'))).toEqual([
      [2, 26],
      [34, 2],
      [66, 14],
      [98, 8],
    ]);
  });

  it(`draws at most ${MAX_SPARK_POINTS} points of a long series, keeping its ends and its extremes where they are`, () => {
    const points = linePoints(renderSparkline(WAVE, 'trend'));
    expect(points.length).toBeLessThanOrEqual(MAX_SPARK_POINTS);
    expect(points.length).toBeGreaterThan(MAX_SPARK_POINTS - 10);
    expect(points[0]).toEqual([2, 14]);
    expect(points.at(-1)?.[0]).toBe(98);
    const step = 96 / 199;
    expect(points).toContainEqual([Math.round((2 + 37 * step) * 10) / 10, 2]);
    expect(points).toContainEqual([Math.round((2 + 151 * step) * 10) / 10, 26]);
    const xs = points.map(([x]) => x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    // The words still describe every value.
    expect(describeTrend(WAVE, String)).toBe('Trend of 200 values from 0 to -5, low -500, high 500');
  });

  it('keeps a table full of 200-point sparklines to a few kilobytes per cell', () => {
    const columns: TableBlock['columns'] = Array.from({ length: 16 }, (_, column) => ({ key: `c${column}`, label: `C${column}` }));
    const rows = Array.from({ length: 100 }, (_, row) => Object.fromEntries(columns.map((column, index) => [column.key, { value: row + index, spark: WAVE }])));
    const html = renderDashboard({ slug: 'sparks', title: 'Sparks', sections: [{ blocks: [{ type: 'table', columns, rows }] }] }, { version: 1, updatedAt: '2024-05-03T09:00:00.000Z' }).html;
    expect(html.match(/<svg class="spark"/g)).toHaveLength(1600);
    expect(html.length / 1600).toBeLessThan(2600);
  });
});
