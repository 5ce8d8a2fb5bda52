/**
 * One chart drawing as a job any thread can run: the block it is drawn from, which figure it is and its
 * size, and nothing else of the page. A page's drawings are independent of each other and of the rest
 * of the page, so the page renderer can spread them over its render threads (see page-renderer.ts).
 */
import { COMMON_BLOCK_FIELDS, type ChartBlock, type GaugeBlock, type HeatmapBlock } from '../spec-schema.js';
import { ChartCache, chartCache } from './chart-cache.js';
import { chartKind, chartOption, drawsSlices, evenFixedAxes, gaugeOption, heatmapOption, roomForMarkLabels } from './chart-options.js';
import { renderEChartsSvg, type ChartRender } from './echarts-ssr.js';
import { fillCharts, type ChartPlan } from './chart-slots.js';
import { mergeOption } from './merge-option.js';

interface JobSize {
  width: number;
  height: number;
}

export type ChartFigureJob =
  | ({ figure: 'chart'; block: ChartBlock } & JobSize)
  | ({ figure: 'heatmap'; block: HeatmapBlock } & JobSize)
  | ({ figure: 'gauge'; block: GaugeBlock } & JobSize);

/** A drawing to make, with the key it is cached by (everything it depends on, hashed). */
export type ChartJob = ChartFigureJob & { key: string };

/** The block without the fields every block carries, none of which reaches its drawing. */
function drawnFields(block: ChartFigureJob['block']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(block).filter(([field]) => !COMMON_BLOCK_FIELDS.has(field)));
}

/**
 * Keyed by the block's own fields and the size, which are all a drawing depends on: a chart retitled,
 * moved or given a caption is not drawn again, nor is the same chart on another dashboard. (Not by the
 * generated option: its formatters are functions, which JSON leaves out, and they depend on the unit.)
 */
export function chartJob(figureJob: ChartFigureJob): ChartJob {
  return { ...figureJob, key: ChartCache.key([figureJob.figure, drawnFields(figureJob.block), figureJob.width, figureJob.height]) };
}

/** The ECharts option a drawing is made from: generated from its block, the block's own `option` merged over it. */
export function jobOption(job: ChartFigureJob): Record<string, unknown> {
  const layout = { width: job.width, height: job.height };
  switch (job.figure) {
    case 'chart':
      return roomForMarkLabels(evenFixedAxes(mergeOption(chartOption(job.block, layout), job.block.option)));
    case 'heatmap':
      return heatmapOption(job.block, layout);
    case 'gauge':
      return gaugeOption(job.block, layout);
  }
}

/** Rough milliseconds on a warm thread for a drawing with axes, and for one without (slices, a gauge). */
const AXES_COST = 6;
const ROUND_COST = 4;

/**
 * A rough guess of how long a drawing takes, only to order a page's drawings longest first: the
 * threads then finish together instead of one drawing a big heatmap alone at the end.
 */
export function estimatedDrawCost(job: ChartFigureJob): number {
  const widthFactor = 1 + job.width / 2000;
  switch (job.figure) {
    case 'gauge':
      return ROUND_COST;
    case 'heatmap':
      // Every cell is a shape with a label.
      return (AXES_COST + 0.08 * job.block.values.reduce((cells, row) => cells + row.length, 0)) * widthFactor;
    case 'chart': {
      const points = (job.block.series ?? []).reduce((count, series) => count + series.data.length, 0);
      return ((drawsSlices(chartKind(job.block)) ? ROUND_COST : AXES_COST) + 0.05 * points) * widthFactor;
    }
  }
}

export function drawChartJob(job: ChartFigureJob): ChartRender {
  return renderEChartsSvg(jobOption(job), { width: job.width, height: job.height });
}

/** How many of a page's drawings were made for it, and how many taken from the cache. */
export interface ChartTally {
  drawn: number;
  reused: number;
}

/**
 * Drawings made in this thread, taking what `cache` already holds under `keyOf(job)` (drawings, never
 * failures): by default the process's chart cache, by the job's own key.
 */
export function drawChartJobsHere(
  jobs: readonly ChartJob[],
  cache: ChartCache = chartCache,
  keyOf: (job: ChartJob) => string = (job) => job.key,
  tally: ChartTally = { drawn: 0, reused: 0 },
): ChartRender[] {
  return jobs.map((job): ChartRender => {
    const key = keyOf(job);
    const cached = cache.get(key);
    if (cached !== undefined) {
      tally.reused += 1;
      return { ok: true, svg: cached };
    }
    tally.drawn += 1;
    const drawn = drawChartJob(job);
    if (drawn.ok) cache.set(key, drawn.svg);
    return drawn;
  });
}

/** `html` with the drawings `plan` lists made in this thread (see drawChartJobsHere). */
export function fillChartsDrawnHere(html: string, plan: ChartPlan): string {
  return fillCharts(html, plan, drawChartJobsHere(plan.jobs));
}
