/**
 * Draws a dashboard's page soon after it is published, so the first person to open it gets a page
 * that is already rendered instead of waiting for ECharts. A dashboard is rendered once it has been
 * quiet for a moment: an agent publishing every few milliseconds does not get every intermediate
 * version drawn, only the one that stays.
 *
 * Best effort and local to this process: the render runs only on an idle render thread, a replica
 * that did not take the publish renders on first view, and a pending render is forgotten on restart.
 */
import type { DashboardVersionRef } from '../events.js';
import { realTimers, type Timers } from '../timers.js';

export type PrerenderTarget = DashboardVersionRef;

export interface PrerendererOptions {
  /** Render once the dashboard has not been republished for this long. */
  quietMs: number;
  /** Dashboards waiting beyond this many are left to render on first view. */
  maxPending: number;
  /** Whether a render thread is free now; when not, the render waits for the next quiet interval. */
  canRender: () => boolean;
  render: (target: PrerenderTarget) => Promise<void>;
  onError: (error: unknown, target: PrerenderTarget) => void;
  /** The clock the quiet window is measured with (tests move their own). */
  timers?: Timers;
}

interface Pending {
  target: PrerenderTarget;
  lastPublishedAt: number;
  cancel: () => void;
}

export class Prerenderer {
  private readonly pending = new Map<string, Pending>();
  private closed = false;
  private readonly timers: Timers;

  constructor(private readonly options: PrerendererOptions) {
    this.timers = options.timers ?? realTimers;
  }

  published(target: PrerenderTarget): void {
    if (this.closed) return;
    const key = `${target.accountId}\u0000${target.slug}`;
    const entry = this.pending.get(key);
    if (entry) {
      // Re-arming a timer on every publish would cost more than the publish; the timer checks the time instead.
      entry.target = target;
      entry.lastPublishedAt = this.timers.now();
      return;
    }
    if (this.pending.size >= this.options.maxPending) return;
    const created: Pending = { target, lastPublishedAt: this.timers.now(), cancel: this.arm(key, this.options.quietMs) };
    this.pending.set(key, created);
  }

  /** Dashboards waiting to be drawn. */
  get size(): number {
    return this.pending.size;
  }

  close(): void {
    this.closed = true;
    for (const entry of this.pending.values()) entry.cancel();
    this.pending.clear();
  }

  private arm(key: string, delayMs: number): () => void {
    return this.timers.after(Math.max(1, Math.ceil(delayMs)), () => this.due(key));
  }

  private due(key: string): void {
    const entry = this.pending.get(key);
    if (!entry || this.closed) return;
    const quietFor = this.timers.now() - entry.lastPublishedAt;
    if (quietFor < this.options.quietMs || !this.options.canRender()) {
      entry.cancel = this.arm(key, this.options.quietMs - Math.min(quietFor, this.options.quietMs) || this.options.quietMs);
      return;
    }
    this.pending.delete(key);
    this.options.render(entry.target).catch((error: unknown) => {
      // A render cut short by shutdown is not a failure worth reporting.
      if (!this.closed) this.options.onError(error, entry.target);
    });
  }
}
