/**
 * The time a page's drawings have spent on render threads: from when the first of them starts on a thread
 * until none is running, summed. Time spent waiting for a thread (behind other pages, checks or publishes'
 * pre-renders on a busy server) is not the page's: counted, it had a page pre-rendered on a loaded machine
 * give up charts it had never started, and keep them given up for every visitor.
 */
export class DrawingClock {
  private running = 0;
  private runningSince = 0;
  private spentMs = 0;

  /** A drawing of the page was sent to a thread. */
  started(): void {
    if (this.running === 0) this.runningSince = performance.now();
    this.running += 1;
  }

  /** A drawing that `started` has ended, however. */
  ended(): void {
    this.running -= 1;
    if (this.running === 0) this.spentMs += performance.now() - this.runningSince;
  }

  get usedMs(): number {
    return this.spentMs + (this.running > 0 ? performance.now() - this.runningSince : 0);
  }
}
