import type { Timers } from '../timers.js';

/** Timers whose time moves only when a test calls advance(): what was due by then runs, in order. */
export class ManualTimers implements Timers {
  private time = 0;
  private readonly due = new Set<{ at: number; run: () => void }>();

  now(): number {
    return this.time;
  }

  after(ms: number, run: () => void): () => void {
    const entry = { at: this.time + ms, run };
    this.due.add(entry);
    return () => this.due.delete(entry);
  }

  /** Moves time forward by `ms`, running each timer that comes due at its own time. */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const next = [...this.due].filter((entry) => entry.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.due.delete(next);
      this.time = next.at;
      next.run();
    }
    this.time = until;
  }
}
