/**
 * An open-loop load at a fixed rate, as senders of webhooks make it: request i is due at start + i / rate,
 * whether or not earlier ones were answered, and its latency counts from when it was due (not from when a
 * free connection sent it), so a server that stalls is charged for every request that waited (wrk2's rule).
 * autocannon's `overallRate` sends each second's quota as fast as it can and then waits for the next second,
 * which measured bursts at full speed, not a steady 1,000/s.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';

export interface PacedOptions {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
  /** A header whose value differs on every request, as a webhook sender's delivery id does. */
  uniqueHeader?: string;
  perSecond: number;
  seconds: number;
}

export interface PacedResult {
  /** Answers per second over the run. */
  achieved: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Connection errors and answers that are not 2xx. */
  failed: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0);
}

/**
 * Calls `call(index)` at `perSecond` for `seconds`, open loop: each call is due at start + i / rate, and its
 * latency counts from then. `call` resolves true when it succeeded, false when it was answered with a failure,
 * null when it got no answer (a connection error: no latency to count).
 */
export async function pacedCalls(perSecond: number, seconds: number, call: (index: number) => Promise<boolean | null>): Promise<PacedResult> {
  const total = Math.round(perSecond * seconds);
  const latencies: number[] = [];
  let failed = 0;
  let sent = 0;
  const start = performance.now();
  const answered: Array<Promise<void>> = [];
  const send = (dueAt: number, index: number) =>
    call(index).then((ok) => {
      if (ok !== true) failed += 1;
      if (ok !== null) latencies.push(performance.now() - dueAt);
    });
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      // Every call due by now goes out. Between ticks the loop sleeps till the next one is due (a timer's
      // millisecond at least) rather than spinning: on two cores a spinning sender takes a core from the
      // server it measures. A call made up to a millisecond late is charged that millisecond.
      while (sent < total && start + (sent * 1000) / perSecond <= now) {
        answered.push(send(start + (sent * 1000) / perSecond, sent));
        sent += 1;
      }
      if (sent < total) setTimeout(tick, Math.max(0, start + (sent * 1000) / perSecond - performance.now()));
      else resolve();
    };
    tick();
  });
  await Promise.all(answered);
  const elapsedS = (performance.now() - start) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return { achieved: Math.round(sorted.length / elapsedS), p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)), maxMs: round(sorted.at(-1) ?? 0), failed };
}

export async function pacedLoad(options: PacedOptions): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL(options.url);
  const body = Buffer.from(options.body);
  const headers = { ...options.headers, 'content-length': String(body.length) };
  const prefix = `${randomUUID()}-`;
  const send = (index: number) =>
    new Promise<boolean | null>((resolve) => {
      const unique = options.uniqueHeader ? { [options.uniqueHeader]: prefix + index } : {};
      const request = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: options.method, headers: { ...headers, ...unique }, agent }, (response) => {
        response.resume();
        response.on('end', () => resolve((response.statusCode ?? 0) < 300));
      });
      request.on('error', () => resolve(null));
      request.end(body);
    });
  try {
    return await pacedCalls(options.perSecond, options.seconds, send);
  } finally {
    agent.destroy();
  }
}
