/**
 * Calls that arrive in one turn of the event loop, or while the previous group is being handled, are handled
 * together, in the order they arrived, at most `maxPerGroup` at a time: what a group commit (transactions.ts)
 * and the webhook's fire recording (triggers/fire-batch.ts) share.
 */
export interface PendingCall<I, O> {
  input: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

export class CallBatches<I, O> {
  private readonly waiting: Array<PendingCall<I, O>> = [];
  private draining = false;

  constructor(
    private readonly maxPerGroup: number,
    /** Settles every call of the group; it must not throw. */
    private readonly handle: (group: Array<PendingCall<I, O>>) => Promise<void>,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.draining) return;
      this.draining = true;
      // The calls made in this turn (a thread answering a batch at once, requests read together) join in.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.handle(this.waiting.splice(0, this.maxPerGroup));
    } finally {
      this.draining = false;
    }
  }
}
