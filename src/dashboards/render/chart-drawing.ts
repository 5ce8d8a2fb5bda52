/**
 * One chart drawing as a job any thread can run: the block it is drawn from, which figure it is and its
 * size, and nothing else of the page. A page's drawings are independent of each other and of the rest
 * of the page, so the page renderer can spread them over its render threads (see page-renderer.ts).
 */
import type { ChartBlock, GaugeBlock, HeatmapBlock } from '../spec-schema.js';
import { ChartCache, chartCache } from './chart-cache.js';
import { chartKind, chartOption, drawsSlices, gaugeOption, heatmapOption } from './chart-options.js';
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

/**
 * Keyed by the ECharts option and the size, which are all a drawing depends on, rather than by the
 * block: a chart retitled, moved or given a note is not drawn again, nor is the same chart on another
 * dashboard.
 */
export function chartJob(figureJob: ChartFigureJob): ChartJob {
  return { ...figureJob, key: ChartCache.key([jobOption(figureJob), figureJob.width, figureJob.height]) };
}

/** The ECharts option a drawing is made from: generated from its block, the block's own `option` merged over it. */
export function jobOption(job: ChartFigureJob): Record<string, unknown> {
  const layout = { width: job.width, height: job.height };
  switch (job.figure) {
    case 'chart':
      return mergeOption(chartOption(job.block, layout), job.block.option);
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

/** Drawings made in this thread, taking what the process's chart cache already holds (drawings, never failures). */
export function drawChartJobsHere(jobs: readonly ChartJob[]): ChartRender[] {
  return jobs.map((job): ChartRender => {
    const cached = chartCache.get(job.key);
    if (cached !== undefined) return { ok: true, svg: cached };
    const drawn = drawChartJob(job);
    if (drawn.ok) chartCache.set(job.key, drawn.svg);
    return drawn;
  });
}

/** `html` with the drawings `plan` lists made in this thread (see drawChartJobsHere). */
export function fillChartsDrawnHere(html: string, plan: ChartPlan): string {
  return fillCharts(html, plan, drawChartJobsHere(plan.jobs));
}
