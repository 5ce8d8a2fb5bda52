/**
 * Drawings a render thread makes before anyone waits for it. V8 compiles ECharts' hot paths only after
 * they have run for a while, so a new thread's first pages draw at about half speed (measured on the
 * example gallery: about 300 ms for the first pages, 130 ms once warm). One sample of every chart kind,
 * the heatmap and the gauge, at laptop and phone widths, drawn a few times as background jobs, takes
 * that cost before the first visitor does.
 */
import type { ChartFigureJob } from '../dashboards/render/chart-drawing.js';
import { CHART_KINDS, type ChartBlock } from '../dashboards/spec-schema.js';

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const HOURS = Array.from({ length: 24 }, (_, hour) => `${hour}h`);

function sampleChart(kind: ChartBlock['kind']): ChartBlock {
  return {
    type: 'chart',
    kind,
    title: 'Runs',
    categories: DAYS,
    series: [
      { name: 'Passed', data: [120, 132, 101, 134, 90, 23, 21], tone: 'positive' },
      { name: 'Failed', data: [4, 12, null, 6, 3, 0, 1], tone: 'danger' },
    ],
    legend: true,
    unit: 'runs',
  };
}

/** The sample drawings, in the order a thread draws them. */
export const WARMUP_JOBS: readonly ChartFigureJob[] = [
  ...CHART_KINDS.flatMap((kind) => [562, 320].map((width): ChartFigureJob => ({ figure: 'chart', block: sampleChart(kind), width, height: 260 }))),
  ...[1178, 320].map(
    (width): ChartFigureJob => ({
      figure: 'heatmap',
      block: { type: 'heatmap', xLabels: HOURS, yLabels: DAYS, values: DAYS.map((_, day) => HOURS.map((_, hour) => ((day + 3) * (hour + 5) * 37) % 90)), unit: 'runs' },
      width,
      height: 250,
    }),
  ),
  {
    figure: 'gauge',
    block: { type: 'gauge', value: 72, min: 0, max: 100, unit: '%', bands: [{ upTo: 50, tone: 'danger' }, { upTo: 80, tone: 'warning' }, { upTo: 100, tone: 'positive' }] },
    width: 260,
    height: 190,
  },
];
