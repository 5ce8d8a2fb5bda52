/**
 * Renders dashboard pages on worker threads (see thread-pool.ts). A page with charts takes ECharts tens
 * to hundreds of milliseconds; drawn on the thread that answers requests, every API call and git push
 * would wait behind it, and a chart `option` that asks ECharts for millions of points would stall the
 * whole server. On a render thread it costs its own core, and a render that runs past its time limit
 * is stopped with 503 RENDER_TIMEOUT.
 *
 * Pages people are waiting for go before pre-renders (see prerender.ts), which only use idle threads.
 * With `threads: 0` pages render in the calling thread instead (no time limit): for debugging.
 */
import { gzipSync } from 'node:zlib';
import { AppError } from '../errors.js';
import { ThreadPool } from '../thread-pool.js';
import { renderDashboardPage, type PageMeta } from './dashboard-page.js';

export interface RenderedPage {
  csp: string;
  body: Buffer;
  gzip: Buffer;
}

export interface RenderInput {
  specText: string;
  meta: PageMeta;
}

/** What a render thread sends back: a structured clone turns Buffers into plain byte arrays. */
export interface RenderOutput {
  csp: string;
  body: Uint8Array;
  gzip: Uint8Array;
}

/** `visitor`: someone is waiting for the page. `background`: a pre-render, run only on an idle thread. */
export type RenderPriority = 'visitor' | 'background';

export interface PageRendererOptions {
  /** Render threads; 0 renders in the calling thread. */
  threads: number;
  /** A render running longer than this is stopped (its thread is replaced). */
  timeoutMs: number;
  /** A thread that failed outside any page (it could not start, or it crashed). */
  onThreadError?: (error: unknown) => void;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The whole job of a render thread: the page, and its gzip made once. */
export function renderCompressedPage({ specText, meta }: RenderInput): RenderOutput {
  const page = renderDashboardPage(specText, meta);
  const body = Buffer.from(page.html, 'utf8');
  return { csp: page.csp, body, gzip: gzipSync(body, { level: 6 }) };
}

function timeoutError(timeoutMs: number): AppError {
  const seconds = Math.round(timeoutMs / 100) / 10;
  return new AppError(
    'RENDER_TIMEOUT',
    `Drawing this dashboard took longer than ${seconds} s, so it was stopped. A chart's \`option\` probably asks ECharts for far too much (millions of ticks, points or labels); simplify it and publish again.`,
  );
}

export class PageRenderer {
  private readonly pool: ThreadPool<RenderInput, RenderOutput> | undefined;

  constructor(options: PageRendererOptions) {
    this.pool =
      options.threads > 0
        ? new ThreadPool<RenderInput, RenderOutput>({
            entry: new URL('./render-thread.js', import.meta.url),
            threads: options.threads,
            timeoutMs: options.timeoutMs,
            timeoutError: () => timeoutError(options.timeoutMs),
            ...(options.onThreadError ? { onThreadError: options.onThreadError } : {}),
          })
        : undefined;
  }

  async render(specText: string, meta: PageMeta, priority: RenderPriority = 'visitor'): Promise<RenderedPage> {
    const input: RenderInput = { specText, meta };
    const output = this.pool ? await this.pool.run(input, priority === 'visitor' ? 'high' : 'low') : renderCompressedPage(input);
    return { csp: output.csp, body: asBuffer(output.body), gzip: asBuffer(output.gzip) };
  }

  /** True when a page could start drawing at once (never with threads: 0, which has no spare thread). */
  get idle(): boolean {
    return this.pool?.idle ?? false;
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
