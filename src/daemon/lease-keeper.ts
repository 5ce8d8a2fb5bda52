/**
 * The execution lease. Follows the runtime's event stream: while any runtime session (root or subagent)
 * is busy or retrying, renews the lease with the API every renew interval; when none is, releases it
 * (`session.idle` / `session.error` / an idle status). An unreachable API is retried every interval.
 * A watchdog compares the busy set with the runtime's status and conversation, so a status left at busy
 * after its turn ended cannot hold the lease forever.
 */
import type { ApiClient } from './api-client.js';
import { followEventStream } from './http-json.js';
import type { RuntimeClient } from './runtime-client.js';

export interface LeaseKeeperOptions {
  api: ApiClient;
  runtime: RuntimeClient;
  renewMs: number;
  stuckMs: number;
  isRuntimeReady: () => boolean;
  log: (message: string) => void;
}

export class LeaseKeeper {
  /** Session id → when its last event arrived. */
  readonly busy = new Map<string, number>();
  /**
   * Sessions handed a prompt whose runtime has not said `busy` yet → since when. The runtime reports busy
   * only once it has loaded the model's provider, which can take seconds; the lease covers that wait.
   */
  private readonly prompted = new Map<string, number>();
  /** What the API last acknowledged: held (true), released (false), or nothing yet. */
  held: boolean | null = null;
  lastRenewalAt: string | null = null;
  lastError: string | null = null;
  renewals = 0;
  private timer: NodeJS.Timeout | undefined;
  private stream: AbortController | undefined;
  private stopped = false;
  private sending = false;
  private watching = false;

  constructor(private readonly options: LeaseKeeperOptions) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.tick(), this.options.renewMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.stream?.abort();
  }

  /**
   * (Re)subscribes to the runtime's events; called at every runtime boot. Resolves once the stream is open
   * and the runtime's statuses are read, so a turn started after it (a prompt, a message) cannot go unseen.
   */
  follow(): Promise<void> {
    this.stream?.abort();
    const controller = new AbortController();
    this.stream = controller;
    return new Promise<void>((resolve) => {
      void this.read(controller, resolve).catch(() => {});
    });
  }

  private async read(controller: AbortController, onFirstOpen: () => void): Promise<void> {
    while (!controller.signal.aborted && !this.stopped) {
      await followEventStream(
        `${this.options.runtime.baseUrl}/event`,
        (data) => {
          try {
            this.onEvent(JSON.parse(data));
          } catch {}
        },
        controller.signal,
        // Events sent before the stream opened are lost: the statuses say what is busy already.
        () => void this.seed().finally(onFirstOpen),
      );
      if (controller.signal.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    onFirstOpen();
  }

  private async seed(): Promise<void> {
    try {
      const statuses = await this.options.runtime.statuses();
      const wasBusy = this.busy.size > 0;
      for (const [id, status] of Object.entries(statuses)) if ((status === 'busy' || status === 'retry') && !this.busy.has(id)) this.busy.set(id, Date.now());
      if (!wasBusy && this.busy.size > 0) void this.send();
    } catch {}
  }

  /** A prompt was handed to this runtime session: it is at work from now on. */
  promptSent(sessionId: string): void {
    const wasBusy = this.busy.size > 0;
    this.prompted.set(sessionId, Date.now());
    this.busy.set(sessionId, Date.now());
    if (!wasBusy) void this.send();
  }

  onEvent(event: { type?: string; properties?: any }): void {
    const properties = event.properties ?? {};
    const sessionId: string | undefined = properties.sessionID;
    const wasBusy = this.busy.size > 0;
    if (event.type === 'session.status' && sessionId) {
      const type = properties.status?.type;
      if (type === 'busy' || type === 'retry') {
        this.busy.set(sessionId, Date.now());
        this.prompted.delete(sessionId);
      } else if (type === 'idle' && !this.prompted.has(sessionId)) this.busy.delete(sessionId);
    } else if (event.type === 'session.idle' && sessionId && !this.prompted.has(sessionId)) {
      this.busy.delete(sessionId);
    } else if (event.type === 'session.error') {
      if (sessionId) this.busy.delete(sessionId);
      else this.busy.clear();
      if (sessionId) this.prompted.delete(sessionId);
      else this.prompted.clear();
    } else if (sessionId && this.busy.has(sessionId)) {
      this.busy.set(sessionId, Date.now());
    }
    const isBusy = this.busy.size > 0;
    if (isBusy !== wasBusy) void this.send();
  }

  /** The runtime restarted or stopped: nothing of it is running any more. */
  clear(): void {
    const wasBusy = this.busy.size > 0;
    this.busy.clear();
    this.prompted.clear();
    if (wasBusy) void this.send();
  }

  private async tick(): Promise<void> {
    // Renew while busy; while idle, repeat a release the API has not acknowledged yet. Renewal comes first
    // and never waits for the watchdog: a runtime loading its model can take seconds to answer a status.
    if (this.busy.size > 0 || this.held !== false) void this.send();
    if (this.busy.size > 0 && !this.watching) {
      this.watching = true;
      try {
        await this.watchdog();
      } finally {
        this.watching = false;
      }
      if (this.busy.size === 0) void this.send();
    }
  }

  private async watchdog(): Promise<void> {
    if (!this.options.isRuntimeReady()) return;
    try {
      const statuses = await this.options.runtime.statuses();
      for (const [id, lastEventAt] of [...this.busy]) {
        const status = statuses[id];
        if (status !== 'busy' && status !== 'retry') {
          // A prompt the runtime has not started on yet is waited for, at most the stuck limit.
          const promptedAt = this.prompted.get(id);
          if (promptedAt !== undefined && Date.now() - promptedAt < this.options.stuckMs) continue;
          this.prompted.delete(id);
          this.busy.delete(id);
          continue;
        }
        if (Date.now() - lastEventAt < this.options.stuckMs) continue;
        // Quiet for long while "busy": believe the conversation, not the status.
        const last = await this.options.runtime.lastMessage(id);
        const running = Array.isArray(last?.parts) && last.parts.some((part: any) => part?.state?.status === 'running' || part?.state?.status === 'pending');
        if (last?.info?.role === 'assistant' && last.info.time?.completed && !running) {
          this.options.log(`runtime session ${id} reports busy but its last turn ended; releasing its lease`);
          this.busy.delete(id);
        }
      }
    } catch {}
  }

  private async send(): Promise<void> {
    if (this.sending || this.stopped) return;
    this.sending = true;
    try {
      // Loop so a change that arrives during a call is sent right after it.
      for (;;) {
        const busy = this.busy.size > 0;
        try {
          await this.options.api.lease(busy);
          if (this.held !== busy) this.options.log(busy ? `holding the lease (busy: ${[...this.busy.keys()].join(', ')})` : 'released the lease');
          this.held = busy;
          this.lastError = null;
          if (busy) {
            this.renewals += 1;
            this.lastRenewalAt = new Date().toISOString();
          }
        } catch (error) {
          if (this.lastError === null) this.options.log(`the lease could not be ${busy ? 'renewed' : 'released'}: ${(error as Error).message}`);
          this.lastError = (error as Error).message;
          return;
        }
        if (this.busy.size > 0 === busy) return;
      }
    } finally {
      this.sending = false;
    }
  }
}
