/**
 * The guess of how long a drawing takes orders a page's drawings longest first; it must rank the
 * gallery's drawings about as they measure (heatmap and stacked bars longest, gauge and funnel shortest).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { planDashboardPage } from '../../web/dashboard-page.js';
import { chartJob, estimatedDrawCost, type ChartJob } from './chart-drawing.js';

const gallery = fs.readFileSync(new URL('../../../examples/dashboards/engineering-health.json', import.meta.url), 'utf8');
const jobs = planDashboardPage(gallery, { version: 1, updatedAt: '2024-05-03T09:00:00.000Z', view: 'screen' }).charts.jobs;

function name(job: ChartJob): string {
  return `${job.figure === 'chart' ? (job.block.kind ?? 'bar') : job.figure}@${job.width}`;
}

describe('estimatedDrawCost', () => {
  it('puts the wide heatmap first and the gauge and funnel last among the gallery drawings', () => {
    const ranked = [...jobs].sort((a, b) => estimatedDrawCost(b) - estimatedDrawCost(a)).map(name);
    expect(ranked[0]).toBe('heatmap@1178');
    const lastThree = ranked.slice(-3);
    expect(lastThree).toEqual(expect.arrayContaining(['funnel@357', 'gauge@260']));
    expect(lastThree.filter((one) => one === 'pie@357' || one === 'donut@357')).toHaveLength(1);
  });

  it('grows with the points drawn and with the width', () => {
    const line = jobs.find((job) => job.figure === 'chart' && job.block.kind === 'line');
    if (line?.figure !== 'chart') throw new Error('the gallery has a line chart');
    const series = line.block.series ?? [];
    const moreData = { ...line, block: { ...line.block, series: series.map((one) => ({ ...one, data: [...one.data, ...one.data, ...one.data] })) } };
    expect(estimatedDrawCost(moreData)).toBeGreaterThan(estimatedDrawCost(line));
    expect(estimatedDrawCost({ ...line, width: line.width * 2 })).toBeGreaterThan(estimatedDrawCost(line));
  });
});

describe('chartJob', () => {
  const line = jobs.find((job) => job.figure === 'chart' && job.block.kind === 'line');
  if (line?.figure !== 'chart') throw new Error('the gallery has a line chart');

  it('is cached under the same key when only what surrounds the drawing changes (title, caption, span)', () => {
    const moved = chartJob({ figure: 'chart', block: { ...line.block, title: 'Renamed', caption: 'A new caption', span: 6 }, width: line.width, height: line.height });
    expect(moved.key).toBe(line.key);
  });

  it('gets another key for other data, another kind, another size or another unit', () => {
    const series = line.block.series ?? [];
    const otherData = chartJob({ figure: 'chart', block: { ...line.block, series: series.map((one) => ({ ...one, data: one.data.map((value) => (typeof value === 'number' ? value + 1 : value)) })) }, width: line.width, height: line.height });
    const otherKind = chartJob({ figure: 'chart', block: { ...line.block, kind: 'area' }, width: line.width, height: line.height });
    const otherSize = chartJob({ figure: 'chart', block: line.block, width: line.width - 1, height: line.height });
    // A funnel's unit is only in its labels' formatter, a function.
    const funnel = (unit: string) => chartJob({ figure: 'chart', block: { ...line.block, kind: 'funnel', unit }, width: line.width, height: line.height }).key;
    const keys = new Set([line.key, otherData.key, otherKind.key, otherSize.key, funnel('ms'), funnel('s')]);
    expect(keys.size).toBe(6);
  });
});
