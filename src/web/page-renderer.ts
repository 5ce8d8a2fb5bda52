/**
 * Renders dashboard pages on worker threads (see thread-pool.ts). A page with charts takes ECharts tens
 * to hundreds of milliseconds; drawn on the thread that answers requests, every API call and git push
 * would wait behind it, and a chart `option` that asks ECharts for millions of points would stall the
 * whole server.
 *
 * A page is rendered in three kinds of job: one thread lays it out, leaving a marker for each chart;
 * its drawings are spread over all the threads, so a page of twenty charts takes about a twentieth of
 * their time on twenty cores; and one thread puts the drawings in place and compresses the page.
 * Drawings are cached here, by what they are drawn from, for every thread, and shared only within an
 * account. A drawing that runs past the chart time limit is stopped and its chart shows why, as
 * do the charts whose turn comes after the page has used up its own time limit; the rest of the page is
 * unaffected. Laying out or finishing a page past the page's limit stops it with 503 RENDER_TIMEOUT.
 *
 * One heavy chart must not stall everyone's pages: a waiting job goes first when its account, and
 * within the account its page or check, has used the least thread time lately (see fair-queue.ts), so a
 * page's light jobs wait at most about one chart time limit each however many heavy checks are queued,
 * theirs or another account's; and the work of a page or check whose client has gone (`signal`) is
 * dropped or stopped.
 *
 * The same threads serve `svc dashboard check`: a spec's page laid out and its charts drawn, only to
 * report what would not show as written (checkDrawings).
 *
 * Pages people are waiting for go before pre-renders (see prerender.ts), which only use idle threads.
 * With `threads: 0` pages render in the calling thread instead (no time limit): for debugging.
 */
import { gzipSync } from 'node:zlib';
import { ChartCache } from '../dashboards/render/chart-cache.js';
import type { DashboardDrawer, DrawingCheck } from '../dashboards/check-dashboard.js';
import { drawChartJob, drawChartJobsHere, estimatedDrawCost, type ChartJob, type ChartTally } from '../dashboards/render/chart-drawing.js';
import { chartBlockCount, drawingProblems, fillCharts, type ChartPlan } from '../dashboards/render/chart-slots.js';
import type { ChartRender } from '../dashboards/render/echarts-ssr.js';
import { planDashboard } from '../dashboards/render/render-dashboard.js';
import type { DashboardSpec } from '../dashboards/spec-schema.js';
import { formatNumber } from '../dashboards/render/escape.js';
import { AppError, MAX_ISSUES, type Issue } from '../errors.js';
import { ThreadPool, type JobPriority } from '../thread-pool.js';
import { planDashboardPage, type PageMeta } from './dashboard-page.js';
import { DrawingClock } from './drawing-clock.js';
import { WARMUP_JOBS } from './render-warmup.js';

export interface RenderedPage {
  csp: string;
  body: Buffer;
  gzip: Buffer;
  charts: ChartTally;
}

/** What a render thread sends back: a structured clone turns Buffers into plain byte arrays. */
export interface RenderOutput {
  csp: string;
  body: Uint8Array;
  gzip: Uint8Array;
}

/** `visitor`: someone is waiting for the page. `background`: a pre-render, run only on an idle thread. */
export type RenderPriority = 'visitor' | 'background';

/** Who a render is for. */
export interface RenderRequest {
  /** `visitor` by default. */
  priority?: RenderPriority;
  /** Aborted when nobody waits for the page any more (the client went away): its work is dropped or stopped. */
  signal?: AbortSignal;
}

/** How one page or check asks the pool for its jobs. */
interface JobContext {
  priority: JobPriority;
  /** The account, pages or checks, then this page or check: whose job it is, for the pool's fair queue. */
  queue: readonly string[];
  signal: AbortSignal | undefined;
}

export interface PageRendererOptions {
  /** Render threads; 0 renders in the calling thread. */
  threads: number;
  /** A render running longer than this is stopped (its thread is replaced). */
  timeoutMs: number;
  /**
   * A chart drawing running longer than this is stopped and its chart says why (default and at most
   * `timeoutMs`): what one chart may cost a page, and how long it may hold a thread others wait for.
   */
  chartTimeoutMs?: number;
  /** A thread that failed outside any page (it could not start, or it crashed). */
  onThreadError?: (error: unknown) => void;
  /** Times each thread draws the warm-up samples once started (default 0). */
  warmupRounds?: number;
  /** Megabytes of objects a thread may hold before it is ended (default 2048). */
  threadMemoryMb?: number;
}

const RENDER_THREAD_YOUNG_GENERATION_MB = 64;
/**
 * A thread past this much memory is ended and replaced, its drawing failed: a small `option` can ask
 * ECharts for gigabytes (thousands of long labels) long before the time limit stops it.
 */
const DEFAULT_THREAD_MEMORY_MB = 2048;

function scopedKey(cacheScope: string, job: ChartJob): string {
  return `${cacheScope}\u0000${job.key}`;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** What a render thread is asked to do (see the file comment). */
export type RenderJob =
  | { op: 'plan'; specText: string; meta: PageMeta }
  /** Lays a page out only to list its drawings and the problems found on the way (a check, not a page). */
  | { op: 'survey'; specText: string }
  | { op: 'draw'; job: ChartJob }
  /** Draws warm-up sample `sample` (see render-warmup.ts) and forgets it. */
  | { op: 'warm'; sample: number }
  | { op: 'finish'; html: string; csp: string; charts: ChartPlan; drawings: ChartRender[] };

export type RenderJobResult =
  /** A finished page (from `plan` when the page has no charts). */
  | { op: 'page'; page: RenderOutput }
  | { op: 'planned'; html: string; csp: string; charts: ChartPlan }
  | { op: 'surveyed'; charts: ChartPlan; problems: Issue[]; problemTotal: number }
  | { op: 'drawn'; drawing: ChartRender }
  | { op: 'warmed' };

function compressed(html: string, csp: string): RenderOutput {
  const body = Buffer.from(html, 'utf8');
  return { csp, body, gzip: gzipSync(body, { level: 6 }) };
}

/** A render thread's handler. */
export function runRenderJob(job: RenderJob): RenderJobResult {
  switch (job.op) {
    case 'plan': {
      const planned = planDashboardPage(job.specText, job.meta);
      if (planned.charts.jobs.length === 0) return { op: 'page', page: compressed(planned.html, planned.csp) };
      return { op: 'planned', ...planned };
    }
    case 'survey': {
      const { charts, problems, problemTotal } = planDashboard(JSON.parse(job.specText) as DashboardSpec, { version: 1, updatedAt: new Date().toISOString() });
      return { op: 'surveyed', charts, problems, problemTotal };
    }
    case 'draw':
      return { op: 'drawn', drawing: drawChartJob(job.job) };
    case 'warm': {
      const sample = WARMUP_JOBS[job.sample];
      if (sample) drawChartJob(sample);
      return { op: 'warmed' };
    }
    case 'finish':
      return { op: 'page', page: compressed(fillCharts(job.html, job.charts, job.drawings), job.csp) };
  }
}

function seconds(ms: number): number {
  return Math.round(ms / 100) / 10;
}

function pageTimeoutError(timeoutMs: number): AppError {
  return new AppError(
    'RENDER_TIMEOUT',
    `Drawing this dashboard took longer than ${seconds(timeoutMs)} s, so it was stopped. A chart's \`option\` probably asks ECharts for far too much (millions of ticks, points or labels); simplify it and publish again.`,
  );
}

function unexpected(result: RenderJobResult, wanted: string): Error {
  return new Error(`a render thread answered ${result.op} to a ${wanted} job`);
}

/** The block a problem is in, as [section, block]. */
function blockPosition(path: string): [number, number] {
  const match = /^\/sections\/(\d+)\/blocks\/(\d+)/.exec(path);
  return match ? [Number(match[1]), Number(match[2])] : [-1, -1];
}

/**
 * `/sections/2/blocks/10` after `/sections/2/blocks/9`: problems in the order of the page. Within a
 * block they stay in the order they were found (a sort is stable), which is the block's own order.
 */
function byPosition(a: Issue, b: Issue): number {
  const [sectionA, blockA] = blockPosition(a.path);
  const [sectionB, blockB] = blockPosition(b.path);
  return sectionA - sectionB || blockA - blockB;
}

export class PageRenderer implements DashboardDrawer {
  private readonly pool: ThreadPool<RenderJob, RenderJobResult> | undefined;
  /** Drawings by what they are drawn from, for every thread (a thread keeps nothing between jobs). */
  private readonly charts = new ChartCache();
  private readonly chartTimeoutMs: number;
  /** Numbers each page and check, for the pool's turns between them. */
  private requests = 0;
  /** Drawings sent to the threads and not yet answered. */
  private drawingsUnderWay = 0;
  private warming = false;
  /** Settles once the threads have drawn their warm-up samples (at once without threads or warm-up). */
  warmedUp: Promise<void> = Promise.resolve();

  private readonly threadMemoryMb: number;

  constructor(private readonly options: PageRendererOptions) {
    this.threadMemoryMb = options.threadMemoryMb ?? DEFAULT_THREAD_MEMORY_MB;
    this.chartTimeoutMs = Math.min(options.chartTimeoutMs ?? options.timeoutMs, options.timeoutMs);
    this.pool =
      options.threads > 0
        ? new ThreadPool<RenderJob, RenderJobResult>({
            entry: new URL('./render-thread.js', import.meta.url),
            threads: options.threads,
            timeoutMs: options.timeoutMs,
            // ECharts allocates tens of megabytes per page of charts; with a young generation of 64 MB
            // instead of 16 there are fewer scavenges, and the gallery draws about 20 % faster.
            resourceLimits: { maxYoungGenerationSizeMb: RENDER_THREAD_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: this.threadMemoryMb },
            // Only the jobs of a page as a whole run under this error; a drawing's becomes its chart's message (drawOne).
            timeoutError: pageTimeoutError,
            ...(options.onThreadError ? { onThreadError: options.onThreadError } : {}),
          })
        : undefined;
  }

  /**
   * `cacheScope` names whose drawings these are (the account): drawings are reused only within it, or
   * how fast a page or a check comes back would tell one account what another has drawn.
   */
  async render(specText: string, meta: PageMeta, cacheScope: string, request: RenderRequest = {}): Promise<RenderedPage> {
    const charts: ChartTally = { drawn: 0, reused: 0 };
    const output = this.pool
      ? await this.renderOnThreads(this.pool, specText, meta, cacheScope, charts, this.jobContext(cacheScope, 'page', request.priority ?? 'visitor', request.signal))
      : this.renderHere(specText, meta, cacheScope, charts);
    return { csp: output.csp, body: asBuffer(output.body), gzip: asBuffer(output.gzip), charts };
  }

  /**
   * An account's pages share its threads with its checks as two owners, then each page or check with
   * the others of its kind: a page's few light jobs go before an account's own heavy checks, however
   * many of them are queued, as they do before another account's.
   */
  private jobContext(cacheScope: string, kind: 'page' | 'check', priority: RenderPriority, signal: AbortSignal | undefined): JobContext {
    this.requests += 1;
    return { priority: priority === 'visitor' ? 'high' : 'low', queue: [cacheScope, kind, String(this.requests)], signal };
  }

  private renderHere(specText: string, meta: PageMeta, cacheScope: string, tally: ChartTally): RenderOutput {
    const planned = planDashboardPage(specText, meta);
    return compressed(fillCharts(planned.html, planned.charts, this.drawHere(planned.charts.jobs, cacheScope, tally)), planned.csp);
  }

  private drawHere(jobs: readonly ChartJob[], cacheScope: string, tally: ChartTally): ChartRender[] {
    return drawChartJobsHere(jobs, this.charts, (job) => scopedKey(cacheScope, job), tally);
  }

  private async renderOnThreads(
    pool: ThreadPool<RenderJob, RenderJobResult>,
    specText: string,
    meta: PageMeta,
    cacheScope: string,
    tally: ChartTally,
    context: JobContext,
  ): Promise<RenderOutput> {
    const planned = await pool.run({ op: 'plan', specText, meta }, context);
    if (planned.op === 'page') return planned.page;
    if (planned.op !== 'planned') throw unexpected(planned, 'plan');
    const drawings = await this.draw(pool, planned.charts.jobs, cacheScope, tally, context, new DrawingClock());
    const finished = await pool.run({ op: 'finish', html: planned.html, csp: planned.csp, charts: planned.charts, drawings }, context);
    if (finished.op !== 'page') throw unexpected(finished, 'finish');
    return finished.page;
  }

  /**
   * What a dashboard's page would show differently from its spec, without making the page: its
   * drawings are made (and cached, for the page once it is published) as a visitor's would be.
   */
  async checkDrawings(specText: string, cacheScope: string, signal?: AbortSignal): Promise<DrawingCheck> {
    // Whoever checks a dashboard is about to publish it and open its page.
    this.warmUp();
    // A check's jobs take turns with pages as a visitor's page's would, under the same time limits.
    const context = this.jobContext(cacheScope, 'check', 'visitor', signal);
    const surveyed = this.pool ? await this.pool.run({ op: 'survey', specText }, context) : runRenderJob({ op: 'survey', specText });
    if (surveyed.op !== 'surveyed') throw unexpected(surveyed, 'survey');
    const { charts, problems, problemTotal } = surveyed;
    const tally: ChartTally = { drawn: 0, reused: 0 };
    const drawings = this.pool ? await this.draw(this.pool, charts.jobs, cacheScope, tally, context, new DrawingClock()) : this.drawHere(charts.jobs, cacheScope, tally);
    const failedDrawings = drawingProblems(charts, drawings);
    return {
      charts: chartBlockCount(charts),
      problems: [...problems, ...failedDrawings].sort(byPosition).slice(0, MAX_ISSUES),
      total: problemTotal + failedDrawings.length,
    };
  }

  /**
   * The drawings a page needs, from the cache or drawn across the threads, longest first so that the
   * threads finish together. A page keeps at most one drawing per thread under way, so pages opened
   * together share the threads instead of the later one waiting for all of the earlier one's charts.
   * Drawings not started once the page's drawings have run for its time (`clock`) are given up.
   */
  private async draw(
    pool: ThreadPool<RenderJob, RenderJobResult>,
    jobs: readonly ChartJob[],
    cacheScope: string,
    tally: ChartTally,
    context: JobContext,
    clock: DrawingClock,
  ): Promise<ChartRender[]> {
    const drawings: ChartRender[] = [];
    const missing: number[] = [];
    jobs.forEach((job, index) => {
      const svg = this.charts.get(scopedKey(cacheScope, job));
      if (svg === undefined) missing.push(index);
      else drawings[index] = { ok: true, svg };
    });
    tally.drawn += missing.length;
    tally.reused += jobs.length - missing.length;
    const costs = jobs.map(estimatedDrawCost);
    missing.sort((a, b) => (costs[b] ?? 0) - (costs[a] ?? 0));
    let next = 0;
    const drawNext = async (): Promise<void> => {
      for (let index = missing[next++]; index !== undefined; index = missing[next++]) {
        const job = jobs[index] as ChartJob;
        if (clock.usedMs > this.options.timeoutMs) {
          drawings[index] = { ok: false, reason: `the page had used its ${seconds(this.options.timeoutMs)} s for drawing on other charts before this one's turn.` };
          continue;
        }
        drawings[index] = await this.drawOne(pool, job, cacheScope, context, clock);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.threads, missing.length) }, drawNext));
    return drawings;
  }

  /**
   * One drawing, made on a thread under the chart time limit. (Not shared with another page or check
   * that asks for the same drawing meanwhile: it would wait for it in that one's place in the queue.)
   */
  private async drawOne(pool: ThreadPool<RenderJob, RenderJobResult>, job: ChartJob, cacheScope: string, context: JobContext, clock: DrawingClock): Promise<ChartRender> {
    this.drawingsUnderWay += 1;
    let started = false;
    try {
      const onStart = () => {
        started = true;
        clock.started();
      };
      const result = await pool.run({ op: 'draw', job }, { ...context, timeoutMs: this.chartTimeoutMs, onStart });
      if (result.op !== 'drawn') throw unexpected(result, 'draw');
      if (result.drawing.ok) this.charts.set(scopedKey(cacheScope, job), result.drawing.svg);
      return result.drawing;
    } catch (error) {
      // Nobody waits for this drawing any more: not a failure of the chart.
      if (context.signal?.aborted) throw error;
      if (error instanceof AppError && error.code === 'RENDER_TIMEOUT') {
        return {
          ok: false,
          reason: `drawing it took longer than ${seconds(this.chartTimeoutMs)} s, so it was stopped. Its \`option\` probably asks ECharts for far too much (millions of ticks, points or labels); simplify it and publish again.`,
        };
      }
      if (error instanceof Error && (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        return {
          ok: false,
          reason: `drawing it needed more than ${formatNumber(this.threadMemoryMb)} MB of memory, so it was stopped. Its \`option\` probably asks ECharts for far too much (thousands of long labels, millions of points); simplify it and publish again.`,
        };
      }
      return { ok: false, reason: `its drawing thread failed (${error instanceof Error ? error.message : String(error)}).` };
    } finally {
      this.drawingsUnderWay -= 1;
      if (started) clock.ended();
    }
  }

  /**
   * What the render threads are doing: jobs waiting for a thread, jobs on a thread, and of all those the
   * chart drawings (the rest lay pages out or finish them). For tests and diagnostics.
   */
  get activity(): { waiting: number; running: number; drawings: number } {
    return { waiting: this.pool?.waiting ?? 0, running: this.pool?.running ?? 0, drawings: this.drawingsUnderWay };
  }

  /** Starts every render thread now: loading ECharts takes a thread most of a second. */
  start(): void {
    this.pool?.start();
  }

  /**
   * Starts the threads and has each draw the warm-up samples as background jobs, which give way to any
   * page: a thread's first drawings run at half speed while V8 compiles ECharts, and that would
   * otherwise fall on the first visitors. Once per renderer.
   */
  warmUp(): void {
    if (!this.pool || this.warming) return;
    this.warming = true;
    this.pool.start();
    const warmups: Array<Promise<unknown>> = [];
    for (let round = 0; round < (this.options.warmupRounds ?? 0) * this.options.threads; round += 1) {
      for (let sample = 0; sample < WARMUP_JOBS.length; sample += 1) warmups.push(this.pool.run({ op: 'warm', sample }, { priority: 'low' }));
    }
    // A warm-up that fails (the server closing, a thread replaced) only leaves a thread colder.
    this.warmedUp = Promise.allSettled(warmups).then(() => undefined);
  }

  /** True when a page could start drawing at once (never with threads: 0, which has no spare thread). */
  get idle(): boolean {
    return this.pool?.idle ?? false;
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
