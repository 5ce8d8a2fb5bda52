/**
 * Renders dashboard pages on worker threads. A page with charts takes ECharts tens to hundreds of
 * milliseconds; drawn on the thread that answers requests, every API call and git push would wait
 * behind it, and a chart `option` that makes ECharts loop would stop the whole server. On a render
 * thread it costs its own core, and a render that runs past its time limit is stopped by ending the
 * thread.
 *
 * Pages people are waiting for go before pre-renders (see prerender.ts), which only use idle threads.
 * With `threads: 0` pages render in the calling thread instead (no time limit): for debugging.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { AppError } from '../errors.js';
import { renderDashboardPage, type PageMeta } from './dashboard-page.js';

export interface RenderedPage {
  csp: string;
  body: Buffer;
  gzip: Buffer;
}

export interface RenderRequest {
  id: number;
  specText: string;
  meta: PageMeta;
}

export type RenderReply =
  | { id: number; ok: true; csp: string; body: Uint8Array; gzip: Uint8Array }
  | { id: number; ok: false; message: string }
  /** Sent once the thread has loaded the renderer: a thread's start-up does not count against a page's time limit. */
  | { ready: true };

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

interface Job {
  request: RenderRequest;
  resolve: (page: RenderedPage) => void;
  reject: (error: unknown) => void;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function renderInThisThread(specText: string, meta: PageMeta): RenderedPage {
  const page = renderDashboardPage(specText, meta);
  const body = Buffer.from(page.html, 'utf8');
  return { csp: page.csp, body, gzip: gzipSync(body, { level: 6 }) };
}

function spawnRenderWorker(): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    // Running from the TypeScript sources (the test suite): the thread compiles them with tsx as well.
    const tsxPackage = createRequire(here).resolve('tsx/package.json');
    const tsx = pathToFileURL(path.join(path.dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
    const entry = new URL('./render-worker.ts', here).href;
    const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { eval: true });
  }
  return new Worker(new URL('./render-worker.js', here));
}

class RenderThread {
  private readonly worker = spawnRenderWorker();
  private job: Job | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  alive = true;

  constructor(
    private readonly timeoutMs: number,
    private readonly onIdle: (thread: RenderThread) => void,
    private readonly onError: (error: unknown) => void,
  ) {
    // The server's own close() ends the threads; they never keep a process alive by themselves.
    this.worker.unref();
    this.worker.on('message', (reply: RenderReply) => this.finish(reply));
    this.worker.on('error', (error) => {
      if (this.job) this.settle((job) => job.reject(error));
      else this.onError(error);
    });
    this.worker.on('exit', (code) => {
      this.alive = false;
      this.settle((job) => job.reject(new Error(`the render thread exited (code ${code})`)));
      this.onIdle(this);
    });
  }

  get busy(): boolean {
    return this.job !== undefined;
  }

  run(job: Job): void {
    this.job = job;
    if (this.ready) this.send(job);
  }

  private send(job: Job): void {
    this.timer = setTimeout(() => this.stop(), this.timeoutMs);
    this.timer.unref();
    this.worker.postMessage(job.request);
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  private stop(): void {
    const seconds = Math.round(this.timeoutMs / 100) / 10;
    this.settle((job) =>
      job.reject(
        new AppError(
          'RENDER_TIMEOUT',
          `Drawing this dashboard took longer than ${seconds} s, so it was stopped. A chart's \`option\` probably asks ECharts for far too much (millions of ticks, points or labels); simplify it and publish again.`,
        ),
      ),
    );
    void this.worker.terminate();
  }

  private finish(reply: RenderReply): void {
    if ('ready' in reply) {
      this.ready = true;
      if (this.job) this.send(this.job);
      return;
    }
    if (reply.id !== this.job?.request.id) return;
    this.settle((job) => {
      if (reply.ok) job.resolve({ csp: reply.csp, body: asBuffer(reply.body), gzip: asBuffer(reply.gzip) });
      else job.reject(new Error(`rendering failed in the render thread: ${reply.message}`));
    });
    this.onIdle(this);
  }

  private settle(outcome: (job: Job) => void): void {
    const job = this.job;
    if (!job) return;
    this.job = undefined;
    clearTimeout(this.timer);
    outcome(job);
  }
}

export class PageRenderer {
  private readonly threads: RenderThread[] = [];
  private readonly visitors: Job[] = [];
  private readonly background: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PageRendererOptions) {}

  render(specText: string, meta: PageMeta, priority: RenderPriority = 'visitor'): Promise<RenderedPage> {
    if (this.closed) return Promise.reject(new Error('the page renderer is closed'));
    if (this.options.threads === 0) return Promise.resolve().then(() => renderInThisThread(specText, meta));
    return new Promise<RenderedPage>((resolve, reject) => {
      const job: Job = { request: { id: this.nextId++, specText, meta }, resolve, reject };
      (priority === 'visitor' ? this.visitors : this.background).push(job);
      this.dispatch();
    });
  }

  /** True when no page is waiting for a thread and some thread has nothing to do. */
  get idle(): boolean {
    return this.visitors.length === 0 && this.background.length === 0 && (this.threads.length < this.options.threads || this.threads.some((thread) => !thread.busy));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.visitors.splice(0), ...this.background.splice(0)]) job.reject(new Error('the server is shutting down'));
    await Promise.all(this.threads.splice(0).map((thread) => thread.terminate()));
  }

  private dispatch(): void {
    while (!this.closed && (this.visitors.length > 0 || this.background.length > 0)) {
      const thread = this.freeThread();
      if (!thread) return;
      const job = this.visitors.shift() ?? this.background.shift();
      if (job) thread.run(job);
    }
  }

  private freeThread(): RenderThread | undefined {
    const free = this.threads.find((thread) => thread.alive && !thread.busy);
    if (free) return free;
    if (this.threads.length >= this.options.threads) return undefined;
    // Started on first use: a server that never shows a dashboard never loads ECharts.
    const thread = new RenderThread(
      this.options.timeoutMs,
      (done) => {
        const index = this.threads.indexOf(done);
        if (!done.alive && index >= 0) this.threads.splice(index, 1);
        this.dispatch();
      },
      (error) => this.options.onThreadError?.(error),
    );
    this.threads.push(thread);
    return thread;
  }
}
