/**
 * Worker threads for CPU-heavy work (parsing and validating large documents, drawing charts) so the
 * thread that answers requests never waits behind it: every API call, git push and page view keeps
 * its latency while a 16 MiB dashboard is validated or a gallery of charts is drawn.
 *
 * A pool starts its threads on first use, sends each job to an idle thread, runs waiting jobs of
 * `high` priority before `low` ones (and `low` ones only on an otherwise idle pool), stops a job that
 * runs past its time limit by ending its thread, and replaces threads that end.
 *
 * Waiting `high` jobs are shared out by whose they are (`queue`: an account, then a request) and how
 * much thread time each has used lately (see fair-queue.ts), so one account's many heavy jobs cannot
 * hold back another account's page, nor a page's few light jobs wait behind its own account's heavy
 * checks. A job whose
 * caller no longer waits for it (`signal` aborted: the client went away) leaves the queue, or, when it
 * is running, has its thread ended and replaced unless it finishes within `abandonedGraceMs`.
 *
 * With `jobsPerThread` above 1, a thread is sent the jobs that arrive together in one message and
 * answers them in one message, and gets its next jobs before it has finished the ones it holds: waking
 * a sleeping thread costs more than checking a 20 KB document, so under load each wake-up carries a
 * batch, and a thread never sits idle waiting for the request thread to hand it the next job.
 *
 * The thread side is `serveThread(handler)` in the entry module.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, parentPort, type ResourceLimits } from 'node:worker_threads';
import { FairQueue } from './fair-queue.js';

export type JobPriority = 'high' | 'low';

export interface RunOptions {
  /** `high` by default; `low` jobs run only on an otherwise idle pool. */
  priority?: JobPriority;
  /** Whose job this is, outermost first (an account, then a request): waiting jobs take turns by it. */
  queue?: readonly string[];
  /** This job's own time limit, in place of the pool's (only in a pool with a time limit). */
  timeoutMs?: number;
  /** Aborted when nobody waits for the job any more: it is dropped, or stopped, and rejects with the reason. */
  signal?: AbortSignal;
  /** Called when the job is sent to a thread: the time before it was waiting, not running. */
  onStart?: () => void;
}

/**
 * A running job whose caller has gone is left this long to finish before its thread is ended: ending a
 * thread costs a new one most of a second of loading, more than a short job would have taken.
 */
export const ABANDONED_GRACE_MS = 200;

type Request<In> = { id: number; input: In };
type Outcome<Out> = { id: number; ok: true; output: Out } | { id: number; ok: false; message: string };
/** What the pool sends a thread: jobs to run, in order. */
type Batch<In> = { jobs: Array<Request<In>> };
type Reply<Out> =
  /** The outcomes of one batch, in its order. */
  | { outcomes: Array<Outcome<Out>> }
  /** Sent once the entry module has loaded: a thread's start-up does not count against a job's time limit. */
  | { ready: true };

export interface ThreadPoolOptions {
  /** The entry module, as the built `.js` file beside the caller (`new URL('./x-thread.js', import.meta.url)`). */
  entry: URL;
  /** At most this many threads; 0 is not allowed (callers run the work inline instead). */
  threads: number;
  /**
   * How many jobs a thread may hold at once (default 1). Above 1, the jobs that arrive in one turn of the
   * event loop travel to a thread in one message and come back in one. Not with `timeoutMs`: a time limit
   * ends the thread, and with it every job it holds.
   */
  jobsPerThread?: number;
  /** Heap sizes for each thread (Node's defaults when absent). */
  resourceLimits?: ResourceLimits;
  /** A job running longer than this (or its own `timeoutMs`) is stopped, and `timeoutError` rejects it. */
  timeoutMs?: number;
  timeoutError?: (timeoutMs: number) => Error;
  /** A thread failed outside any job (it could not start, or it crashed). */
  onThreadError?: (error: unknown) => void;
  /** How long a running job nobody waits for may still take before its thread is ended (ABANDONED_GRACE_MS). */
  abandonedGraceMs?: number;
}

interface Job<In, Out> {
  request: Request<In>;
  resolve: (output: Out) => void;
  reject: (error: unknown) => void;
  priority: JobPriority;
  queue: readonly string[];
  timeoutMs: number | undefined;
  onStart: (() => void) | undefined;
  /** The thread running it, once sent. */
  thread?: PoolThread<In, Out>;
  /** Its caller no longer waits for it (it has been rejected already). */
  abandoned?: boolean;
}

function spawn(entry: URL, resourceLimits: ResourceLimits | undefined): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry, { resourceLimits });
  // Running from the TypeScript sources (the test suite): the thread compiles them with tsx as well.
  const source = pathToFileURL(fileURLToPath(entry).replace(/\.js$/, '.ts')).href;
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsx = pathToFileURL(path.join(path.dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(boot, { eval: true, resourceLimits });
}

class PoolThread<In, Out> {
  private readonly worker: Worker;
  /** Jobs sent, by id, in the order the thread runs them. */
  private readonly jobs = new Map<number, Job<In, Out>>();
  private timer: NodeJS.Timeout | undefined;
  /** When the jobs it holds were sent, and the time limit they run under. */
  private sentAt = 0;
  private timeoutMs: number | undefined;
  /** Since when the thread has been working on the jobs it holds (for `onCharge`). */
  private busySince = 0;
  /** Whether the entry module has loaded: only then is the thread given jobs. */
  ready = false;
  alive = true;
  /** Why the thread ended, when it ended by an error. */
  failure: unknown;

  constructor(
    private readonly options: ThreadPoolOptions,
    /** The thread has room for more jobs, or has ended; `answered`: because it answered jobs. */
    private readonly onIdle: (thread: PoolThread<In, Out>, answered?: boolean) => void,
    /** How long each job held the thread, once it is answered or ended. */
    private readonly onCharge: (job: Job<In, Out>, ms: number) => void,
  ) {
    this.worker = spawn(options.entry, options.resourceLimits);
    // The pool's close() ends the threads; they never keep a process alive by themselves.
    this.worker.unref();
    this.worker.on('message', (reply: Reply<Out>) => this.receive(reply));
    this.worker.on('error', (error) => {
      // An uncaught error ends the thread ('exit' follows): it takes no new job meanwhile.
      this.alive = false;
      this.failure = error;
      if (this.jobs.size > 0) this.settleAll(error);
      else options.onThreadError?.(error);
    });
    this.worker.on('exit', (code) => {
      this.alive = false;
      this.settleAll(new Error(`a worker thread exited (code ${code}) while running this job`));
      this.onIdle(this);
    });
  }

  /** Jobs the thread holds: running, or waiting in its queue. */
  get load(): number {
    return this.jobs.size;
  }

  run(batch: Array<Job<In, Out>>): void {
    for (const job of batch) {
      this.jobs.set(job.request.id, job);
      job.thread = this;
    }
    this.send(batch);
    for (const job of batch) job.onStart?.();
  }

  /**
   * `job`'s caller has gone (and has its rejection). The thread keeps counting the job as held, since
   * it is still running it; once every job it holds is abandoned, it is ended unless it answers within
   * the grace time of when they were sent.
   */
  abandon(job: Job<In, Out>): void {
    job.abandoned = true;
    if (![...this.jobs.values()].every((held) => held.abandoned)) return;
    clearTimeout(this.timer);
    const graceMs = this.options.abandonedGraceMs ?? ABANDONED_GRACE_MS;
    this.timer = setTimeout(() => this.stop(), Math.max(0, this.sentAt + graceMs - performance.now()));
    this.timer.unref();
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  private send(batch: Array<Job<In, Out>>): void {
    this.sentAt = performance.now();
    if (this.jobs.size === batch.length) this.busySince = this.sentAt;
    // A pool with a time limit sends one job at a time (see the constructor), so the batch has one limit.
    this.timeoutMs = batch[0]?.timeoutMs ?? this.options.timeoutMs;
    if (this.timeoutMs !== undefined) {
      this.timer = setTimeout(() => this.stop(), this.timeoutMs);
      this.timer.unref();
    }
    this.worker.postMessage({ jobs: batch.map((job) => job.request) } satisfies Batch<In>);
  }

  private stop(): void {
    // Abandoned jobs are settled already: rejecting them again does nothing.
    const error = this.options.timeoutError?.(this.timeoutMs ?? 0) ?? new Error(`the job ran longer than ${this.timeoutMs} ms and was stopped`);
    // No new job may reach a thread that is being ended; the pool replaces it once it has exited.
    this.alive = false;
    this.settleAll(error);
    void this.worker.terminate();
  }

  private receive(reply: Reply<Out>): void {
    if ('ready' in reply) {
      this.ready = true;
      this.onIdle(this);
      return;
    }
    clearTimeout(this.timer);
    const share = this.elapsedShare(reply.outcomes.length);
    for (const outcome of reply.outcomes) {
      const job = this.jobs.get(outcome.id);
      // Absent when the job was already settled (its thread timed out and is ending).
      if (!job) continue;
      this.jobs.delete(outcome.id);
      this.onCharge(job, share);
      if (outcome.ok) job.resolve(outcome.output);
      else job.reject(new Error(outcome.message));
    }
    this.onIdle(this, true);
  }

  private settleAll(error: unknown): void {
    clearTimeout(this.timer);
    const jobs = [...this.jobs.values()];
    this.jobs.clear();
    const share = this.elapsedShare(jobs.length);
    for (const job of jobs) {
      this.onCharge(job, share);
      job.reject(error);
    }
  }

  /** The thread's time since it last answered, split between `jobs` jobs; the clock then starts again. */
  private elapsedShare(jobs: number): number {
    const now = performance.now();
    const share = (now - this.busySince) / Math.max(1, jobs);
    this.busySince = now;
    return share;
  }
}

export class ThreadPool<In, Out> {
  private readonly threads: Array<PoolThread<In, Out>> = [];
  private readonly high = new FairQueue<Job<In, Out>>();
  private readonly low: Array<Job<In, Out>> = [];
  private readonly jobsPerThread: number;
  private nextId = 1;
  private closed = false;
  private dispatchScheduled = false;
  private lowDispatchScheduled = false;

  constructor(private readonly options: ThreadPoolOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error('a thread pool needs at least one thread');
    this.jobsPerThread = options.jobsPerThread ?? 1;
    if (!Number.isInteger(this.jobsPerThread) || this.jobsPerThread < 1) throw new Error('jobsPerThread must be a positive integer');
    if (this.jobsPerThread > 1 && options.timeoutMs !== undefined) throw new Error('a pool with a time limit runs one job per thread at a time');
  }

  run(input: In, options: RunOptions = {}): Promise<Out> {
    if (this.closed) return Promise.reject(new Error('the server is shutting down'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (options.timeoutMs !== undefined && this.options.timeoutMs === undefined) throw new Error('a job may have its own time limit only in a pool with one');
    return new Promise<Out>((resolve, reject) => {
      const onAbort = (): void => this.abandon(job, signal?.reason);
      const settled = (): void => signal?.removeEventListener('abort', onAbort);
      const job: Job<In, Out> = {
        request: { id: this.nextId++, input },
        resolve: (output) => {
          settled();
          resolve(output);
        },
        reject: (error) => {
          settled();
          reject(error);
        },
        priority: options.priority ?? 'high',
        queue: options.queue ?? [],
        timeoutMs: options.timeoutMs,
        onStart: options.onStart,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (job.priority === 'high') this.high.push(job.queue, job);
      else this.low.push(job);
      // With several jobs per thread, jobs that arrive in this turn of the event loop (requests read
      // together) leave together.
      if (this.jobsPerThread === 1) this.dispatch();
      else this.scheduleDispatch();
    });
  }

  private scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      this.dispatch();
    });
  }

  /** A job nobody waits for any more: out of the queue, or its thread told (see PoolThread.abandon). */
  private abandon(job: Job<In, Out>, reason: unknown): void {
    job.reject(reason);
    if (job.thread) {
      job.thread.abandon(job);
      return;
    }
    if (job.priority === 'high') this.high.remove(job.queue, job);
    else if (this.low.includes(job)) this.low.splice(this.low.indexOf(job), 1);
  }

  /** Jobs waiting for a thread. */
  get waiting(): number {
    return this.high.size + this.low.length;
  }

  /** Jobs that threads hold: running, or abandoned and not yet stopped. */
  get running(): number {
    return this.threads.reduce((jobs, thread) => jobs + thread.load, 0);
  }

  /** True when no job is waiting and some thread (started or not) has nothing to do. */
  get idle(): boolean {
    return this.high.size === 0 && this.low.length === 0 && (this.threads.length < this.options.threads || this.threads.some((thread) => thread.load === 0));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.rejectWaiting(new Error('the server is shutting down'));
    await Promise.all(this.threads.splice(0).map((thread) => thread.terminate()));
  }

  /**
   * Hands waiting jobs to threads with room. `low` jobs go only in a later turn of the event loop: a
   * thread that has just answered one job of a caller (one chart of a page) is kept for that caller's
   * next job, which arrives a few promise callbacks later, instead of going to a background job first.
   */
  private dispatch(includeLow = false): void {
    while (!this.closed && (this.high.size > 0 || (includeLow && this.low.length > 0))) {
      const thread = this.threadWithRoom();
      if (!thread) return;
      const room = this.jobsPerThread - thread.load;
      const batch: Array<Job<In, Out>> = [];
      while (batch.length < room && this.high.size > 0) batch.push(this.high.shift() as Job<In, Out>);
      if (includeLow && batch.length < room) batch.push(...this.low.splice(0, room - batch.length));
      thread.run(batch);
    }
    if (!includeLow && this.low.length > 0 && !this.lowDispatchScheduled) {
      this.lowDispatchScheduled = true;
      setImmediate(() => {
        this.lowDispatchScheduled = false;
        this.dispatch(true);
      });
    }
  }

  /** Starts every thread the pool may have, so the first jobs do not wait for a thread to load. */
  start(): void {
    while (!this.closed && this.threads.length < this.options.threads) this.startThread();
  }

  /**
   * The least loaded ready thread that can take another job. When every ready thread has work, another
   * thread starts; it takes jobs once it has loaded, since a job handed to a thread still loading would
   * wait for it even when a running thread frees up first.
   */
  private threadWithRoom(): PoolThread<In, Out> | undefined {
    let best: PoolThread<In, Out> | undefined;
    for (const thread of this.threads) {
      if (thread.alive && thread.ready && thread.load < this.jobsPerThread && (!best || thread.load < best.load)) best = thread;
    }
    if (best?.load !== 0 && this.threads.length < this.options.threads) this.startThread();
    return best;
  }

  private startThread(): void {
    const thread = new PoolThread<In, Out>(this.options, (done, answered) => {
      const index = this.threads.indexOf(done);
      if (!done.alive && index >= 0) this.threads.splice(index, 1);
      // A thread that ended before it loaded would end the same way again: unless another thread is up
      // or on its way, the waiting jobs fail with its error, and the next job tries a new thread.
      if (!done.alive && !done.ready) {
        if (!this.threads.some((other) => other.alive)) this.rejectWaiting(done.failure ?? new Error('a worker thread ended while loading'));
        // Otherwise the jobs wait for the thread on its way; starting yet another in its place could go on
        // for as long as each fails while the next loads.
        return;
      }
      // After an answer, not at once: the caller of the job just answered queues its next one (a page's
      // next drawing, then its finish) a few promise callbacks later, and that job should compete for
      // this thread by the fair queue's rules rather than find it taken by whoever happened to be waiting.
      if (answered) this.scheduleDispatch();
      else this.dispatch();
    }, (job, ms) => {
      // What a job cost its owners decides whose waiting job goes next (see fair-queue.ts).
      if (job.priority === 'high') this.high.charge(job.queue, ms);
    });
    this.threads.push(thread);
  }

  private rejectWaiting(error: unknown): void {
    for (const job of [...this.high.drain(), ...this.low.splice(0)]) job.reject(error);
  }
}

/** The thread side: answers each job with `handler(input)`; a thrown error rejects that job only. */
export function serveThread<In, Out>(handler: (input: In) => Out): void {
  const port = parentPort;
  if (!port) throw new Error('this module runs as a worker thread of svc serve');
  port.on('message', (batch: Batch<In>) => {
    const outcomes = batch.jobs.map((request): Outcome<Out> => {
      try {
        return { id: request.id, ok: true, output: handler(request.input) };
      } catch (error) {
        return { id: request.id, ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
      }
    });
    port.postMessage({ outcomes } satisfies Reply<Out>);
  });
  port.postMessage({ ready: true } satisfies Reply<Out>);
}
