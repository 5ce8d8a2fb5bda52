/**
 * Worker threads for CPU-heavy work (parsing and validating large documents, drawing charts) so the
 * thread that answers requests never waits behind it: every API call, git push and page view keeps
 * its latency while a 16 MiB dashboard is validated or a gallery of charts is drawn.
 *
 * A pool starts its threads on first use, sends each job to an idle thread, runs waiting jobs of
 * `high` priority before `low` ones (and `low` ones only on an otherwise idle pool), stops a job that
 * runs past its time limit by ending its thread, and replaces threads that end.
 *
 * The thread side is `serveThread(handler)` in the entry module.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, parentPort } from 'node:worker_threads';

export type JobPriority = 'high' | 'low';

type Request<In> = { id: number; input: In };
type Reply<Out> =
  | { id: number; ok: true; output: Out }
  | { id: number; ok: false; message: string }
  /** Sent once the entry module has loaded: a thread's start-up does not count against a job's time limit. */
  | { ready: true };

export interface ThreadPoolOptions {
  /** The entry module, as the built `.js` file beside the caller (`new URL('./x-thread.js', import.meta.url)`). */
  entry: URL;
  /** At most this many threads; 0 is not allowed (callers run the work inline instead). */
  threads: number;
  /** A job running longer than this is stopped, and `timeoutError` rejects it. */
  timeoutMs?: number;
  timeoutError?: () => Error;
  /** A thread failed outside any job (it could not start, or it crashed). */
  onThreadError?: (error: unknown) => void;
}

interface Job<In, Out> {
  request: Request<In>;
  resolve: (output: Out) => void;
  reject: (error: unknown) => void;
}

function spawn(entry: URL): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(entry);
  // Running from the TypeScript sources (the test suite): the thread compiles them with tsx as well.
  const source = pathToFileURL(fileURLToPath(entry).replace(/\.js$/, '.ts')).href;
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsx = pathToFileURL(path.join(path.dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
  const boot = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(boot, { eval: true });
}

class PoolThread<In, Out> {
  private readonly worker: Worker;
  private job: Job<In, Out> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ready = false;
  alive = true;

  constructor(
    private readonly options: ThreadPoolOptions,
    private readonly onIdle: (thread: PoolThread<In, Out>) => void,
  ) {
    this.worker = spawn(options.entry);
    // The pool's close() ends the threads; they never keep a process alive by themselves.
    this.worker.unref();
    this.worker.on('message', (reply: Reply<Out>) => this.receive(reply));
    this.worker.on('error', (error) => {
      // An uncaught error ends the thread ('exit' follows): it takes no new job meanwhile.
      this.alive = false;
      if (this.job) this.settle((job) => job.reject(error));
      else options.onThreadError?.(error);
    });
    this.worker.on('exit', (code) => {
      this.alive = false;
      this.settle((job) => job.reject(new Error(`a worker thread exited (code ${code}) while running this job`)));
      this.onIdle(this);
    });
  }

  get busy(): boolean {
    return this.job !== undefined;
  }

  run(job: Job<In, Out>): void {
    this.job = job;
    if (this.ready) this.send(job);
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }

  private send(job: Job<In, Out>): void {
    if (this.options.timeoutMs !== undefined) {
      this.timer = setTimeout(() => this.stop(), this.options.timeoutMs);
      this.timer.unref();
    }
    this.worker.postMessage(job.request);
  }

  private stop(): void {
    const error = this.options.timeoutError?.() ?? new Error(`the job ran longer than ${this.options.timeoutMs} ms and was stopped`);
    // No new job may reach a thread that is being ended; the pool replaces it once it has exited.
    this.alive = false;
    this.settle((job) => job.reject(error));
    void this.worker.terminate();
  }

  private receive(reply: Reply<Out>): void {
    if ('ready' in reply) {
      this.ready = true;
      if (this.job) this.send(this.job);
      return;
    }
    if (reply.id !== this.job?.request.id) return;
    this.settle((job) => (reply.ok ? job.resolve(reply.output) : job.reject(new Error(reply.message))));
    this.onIdle(this);
  }

  private settle(outcome: (job: Job<In, Out>) => void): void {
    const job = this.job;
    if (!job) return;
    this.job = undefined;
    clearTimeout(this.timer);
    outcome(job);
  }
}

export class ThreadPool<In, Out> {
  private readonly threads: Array<PoolThread<In, Out>> = [];
  private readonly high: Array<Job<In, Out>> = [];
  private readonly low: Array<Job<In, Out>> = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ThreadPoolOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error('a thread pool needs at least one thread');
  }

  run(input: In, priority: JobPriority = 'high'): Promise<Out> {
    if (this.closed) return Promise.reject(new Error('the server is shutting down'));
    return new Promise<Out>((resolve, reject) => {
      (priority === 'high' ? this.high : this.low).push({ request: { id: this.nextId++, input }, resolve, reject });
      this.dispatch();
    });
  }

  /** True when no job is waiting and some thread (started or not) has nothing to do. */
  get idle(): boolean {
    return this.high.length === 0 && this.low.length === 0 && (this.threads.length < this.options.threads || this.threads.some((thread) => !thread.busy));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of [...this.high.splice(0), ...this.low.splice(0)]) job.reject(new Error('the server is shutting down'));
    await Promise.all(this.threads.splice(0).map((thread) => thread.terminate()));
  }

  private dispatch(): void {
    while (!this.closed && (this.high.length > 0 || this.low.length > 0)) {
      const thread = this.freeThread();
      if (!thread) return;
      const job = this.high.shift() ?? this.low.shift();
      if (job) thread.run(job);
    }
  }

  private freeThread(): PoolThread<In, Out> | undefined {
    const free = this.threads.find((thread) => thread.alive && !thread.busy);
    if (free) return free;
    if (this.threads.length >= this.options.threads) return undefined;
    const thread = new PoolThread<In, Out>(this.options, (done) => {
      const index = this.threads.indexOf(done);
      if (!done.alive && index >= 0) this.threads.splice(index, 1);
      this.dispatch();
    });
    this.threads.push(thread);
    return thread;
  }
}

/** The thread side: answers each job with `handler(input)`; a thrown error rejects that job only. */
export function serveThread<In, Out>(handler: (input: In) => Out): void {
  const port = parentPort;
  if (!port) throw new Error('this module runs as a worker thread of svc serve');
  port.on('message', (request: Request<In>) => {
    let reply: Reply<Out>;
    try {
      reply = { id: request.id, ok: true, output: handler(request.input) };
    } catch (error) {
      reply = { id: request.id, ok: false, message: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies Reply<Out>);
}
