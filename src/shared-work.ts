/**
 * Work that everyone asking for the same key while it runs shares (two visitors of one new page, six
 * checks drawing the same chart), and that is stopped once nobody waits for it any more: each asker
 * passes the signal of its own request, and when the last one aborts, so does the work's signal. An
 * asker without a signal (a pre-render) keeps the work going to the end.
 */
interface Running<T> {
  promise: Promise<T>;
  controller: AbortController;
  /** Askers still waiting, those without a signal counted as never leaving. */
  waiting: number;
  kept: boolean;
}

export class SharedWork<T> {
  private readonly running = new Map<string, Running<T>>();

  /** `work(signal)` for `key`, or the same work already under way. */
  run(key: string, signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    let entry = this.running.get(key);
    if (!entry) {
      const controller = new AbortController();
      const created: Running<T> = { controller, waiting: 0, kept: false, promise: Promise.resolve(undefined as T) };
      created.promise = work(controller.signal).finally(() => {
        if (this.running.get(key) === created) this.running.delete(key);
      });
      // Its askers see the outcome; an abandoned work's rejection is nobody's to handle.
      created.promise.catch(() => undefined);
      this.running.set(key, created);
      entry = created;
    }
    return this.join(key, entry, signal);
  }

  /** Keys of the work under way (for tests and diagnostics). */
  get size(): number {
    return this.running.size;
  }

  private join(key: string, entry: Running<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!signal) {
      entry.kept = true;
      return entry.promise;
    }
    entry.waiting += 1;
    return new Promise<T>((resolve, reject) => {
      const leave = (): void => {
        entry.waiting -= 1;
        reject(signal.reason);
        if (entry.waiting > 0 || entry.kept) return;
        // Whoever asks next starts afresh rather than joining work that is being stopped.
        if (this.running.get(key) === entry) this.running.delete(key);
        entry.controller.abort(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      entry.promise.then(
        (value) => {
          signal.removeEventListener('abort', leave);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', leave);
          reject(error);
        },
      );
    });
  }
}
