/**
 * The clock and timers a component waits with, passed in so its tests move time themselves instead of
 * sleeping (src/testing/manual-timers.ts).
 */
export interface Timers {
  /** Milliseconds from an arbitrary start, never going back. */
  now(): number;
  /** Calls `run` once `ms` have passed; the returned function cancels it. Never keeps the process alive. */
  after(ms: number, run: () => void): () => void;
}

export const realTimers: Timers = {
  now: () => performance.now(),
  after(ms, run) {
    const timer = setTimeout(run, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
