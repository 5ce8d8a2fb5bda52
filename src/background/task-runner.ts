/**
 * Background work, declared in one place and started and stopped with the server. Every replica and
 * worker runs the same tasks, so a task either does work that is its process's own (a page cache to
 * fill), or claims its work through the database: `one-replica` tasks run only while their replica holds
 * the task's lease (see leases.ts), and tasks that share out rows claim them with `FOR UPDATE SKIP LOCKED`
 * or a conditional update. Never an in-process lock: it would hold in one process only.
 */
import { randomUUID } from 'node:crypto';
import type { Services } from '../context.js';
import { claimLease, releaseLease } from './leases.js';

export interface TaskRun {
  services: Services;
  /** Aborted when the server stops: long work checks it and returns. */
  signal: AbortSignal;
  /** This process's id as a lease holder. */
  holder: string;
  now: Date;
}

export interface BackgroundTask {
  name: string;
  /**
   * `every-replica`: each process runs it (its own caches and threads). `one-replica`: one process at a
   * time, the one holding the task's lease; the others stand by and take over within a lease.
   */
  runsOn: 'every-replica' | 'one-replica';
  /** Time between the end of one run and the start of the next. */
  intervalMs: number;
  /** How long a one-replica task's lease lasts when it is not `leaseIntervals` intervals. */
  leaseMs?: number;
  /** Returns how soon to run again when sooner than the interval (a scheduler's next due fire). */
  run(run: TaskRun): Promise<void | { nextRunInMs?: number }>;
}

export interface TaskRunnerOptions {
  onError: (error: unknown, task: BackgroundTask) => void;
  /** The clock tasks and leases read; tests move it. */
  now?: () => Date;
  /** A lease lasts this many intervals, so a replica that stops renewing loses it after that long. */
  leaseIntervals?: number;
}

interface Scheduled {
  task: BackgroundTask;
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
  holdsLease: boolean;
}

export class TaskRunner {
  readonly holder = randomUUID();
  private readonly scheduled = new Map<string, Scheduled>();
  private readonly abort = new AbortController();
  private started = false;

  constructor(
    private readonly services: Services,
    tasks: readonly BackgroundTask[],
    private readonly options: TaskRunnerOptions,
  ) {
    for (const task of tasks) {
      if (this.scheduled.has(task.name)) throw new Error(`Two background tasks are named ${task.name}.`);
      this.scheduled.set(task.name, { task, timer: null, running: null, holdsLease: false });
    }
  }

  get names(): string[] {
    return [...this.scheduled.keys()];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (const entry of this.scheduled.values()) this.arm(entry, 0);
  }

  /** Runs a task now instead of at its next interval (e.g. the scheduler when a trigger was added). */
  wake(name: string): void {
    const entry = this.scheduled.get(name);
    if (!entry || !this.started || this.abort.signal.aborted) return;
    if (entry.running) return;
    this.arm(entry, 0);
  }

  /** Stops every task, waits for runs under way, and gives up the leases held. */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const entry of this.scheduled.values()) if (entry.timer) clearTimeout(entry.timer);
    await Promise.all([...this.scheduled.values()].map((entry) => entry.running));
    await Promise.all(
      [...this.scheduled.values()]
        .filter((entry) => entry.holdsLease)
        .map((entry) => releaseLease(this.services.db, entry.task.name, this.holder).catch((error: unknown) => this.options.onError(error, entry.task))),
    );
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private arm(entry: Scheduled, delayMs: number): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      entry.timer = null;
      entry.running = this.runOnce(entry).finally(() => {
        entry.running = null;
      });
    }, Math.max(0, delayMs));
    entry.timer.unref();
  }

  private async runOnce(entry: Scheduled): Promise<void> {
    const { task } = entry;
    let next = task.intervalMs;
    try {
      if (task.runsOn === 'one-replica') {
        const ttlMs = task.leaseMs ?? task.intervalMs * (this.options.leaseIntervals ?? 3);
        entry.holdsLease = await claimLease(this.services.db, { name: task.name, holder: this.holder, ttlMs, now: this.now() });
      }
      if (task.runsOn === 'every-replica' || entry.holdsLease) {
        const result = await task.run({ services: this.services, signal: this.abort.signal, holder: this.holder, now: this.now() });
        if (result?.nextRunInMs !== undefined) next = Math.min(next, result.nextRunInMs);
      }
    } catch (error) {
      if (!this.abort.signal.aborted) this.options.onError(error, task);
    }
    if (!this.abort.signal.aborted) this.arm(entry, next);
  }
}
