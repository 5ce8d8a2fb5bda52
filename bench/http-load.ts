/**
 * Keeps N keep-alive connections busy against a server for a while and reports what it answered.
 *
 * The load comes from wrk (Debian's `wrk`, written in C) when it is installed, else from autocannon.
 * On the 2-core machine the load generator shares the cores with the server under test, so its own
 * cost is taken from the server: autocannon spends 40–100 µs of CPU per request, wrk about 5 µs. With
 * wrk the figure is the server's; the result names the client either way. BENCH_HTTP_CLIENT=autocannon
 * chooses autocannon even where wrk is installed.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** A header whose value differs on every request, as a webhook sender's delivery id does. */
  uniqueHeader?: string;
  /** The values' prefix (default: one of the run's own); a run given an earlier run's sends its values again. */
  uniquePrefix?: string;
  connections: number;
  seconds: number;
}

export interface LoadResult {
  client: 'wrk' | 'autocannon';
  perSecond: number;
  latencyMs: { p50: number; p99: number };
  /** Connection errors, time-outs and answers that are not 2xx or 3xx. */
  failed: number;
}

const run = promisify(execFile);

async function hasWrk(): Promise<boolean> {
  try {
    await run('wrk', ['--version']);
    return true;
  } catch (error) {
    // wrk prints its usage and exits 1 on --version; only a missing binary is ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

function luaString(value: string): string {
  return `"${value.replace(/[\\"]/g, (character) => `\\${character}`).replace(/\n/g, '\\n')}"`;
}

async function loadWithWrk(options: LoadOptions): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wrk-'));
  try {
    const lines = [`wrk.method = ${luaString(options.method ?? 'GET')}`];
    if (options.body !== undefined) {
      fs.writeFileSync(path.join(dir, 'body'), options.body);
      lines.push(`local file = io.open(${luaString(path.join(dir, 'body'))}, "rb")`, 'wrk.body = file:read("*a")', 'file:close()');
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`wrk.headers[${luaString(name)}] = ${luaString(value)}`);
    if (options.uniqueHeader) {
      // A run's own prefix, so that no value repeats one an earlier run of the same server received.
      lines.push(
        'local sent = 0',
        `local prefix = ${luaString(options.uniquePrefix ?? `${randomUUID()}-`)}`,
        'request = function()',
        '  sent = sent + 1',
        `  wrk.headers[${luaString(options.uniqueHeader)}] = prefix .. sent`,
        '  return wrk.format()',
        'end',
      );
    }
    // One JSON line at the end: requests, elapsed µs, failures and latency percentiles (µs).
    lines.push(
      'done = function(summary, latency)',
      '  local e = summary.errors',
      '  io.write(string.format(\'\\nSUMMARY {"requests":%d,"micros":%d,"failed":%d,"p50":%d,"p99":%d}\\n\', summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout + e.status, latency:percentile(50), latency:percentile(99)))',
      'end',
    );
    const script = path.join(dir, 'load.lua');
    fs.writeFileSync(script, lines.join('\n'));
    // One thread is enough to keep 32 connections busy and leaves the most CPU to the server.
    const { stdout } = await run('wrk', ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', script, options.url]);
    const line = stdout.split('\n').find((text) => text.startsWith('SUMMARY '));
    if (!line) throw new Error(`wrk printed no summary:\n${stdout}`);
    const summary = JSON.parse(line.slice('SUMMARY '.length)) as { requests: number; micros: number; failed: number; p50: number; p99: number };
    return {
      client: 'wrk',
      perSecond: Math.round(summary.requests / (summary.micros / 1e6)),
      latencyMs: { p50: summary.p50 / 1000, p99: summary.p99 / 1000 },
      failed: summary.failed,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Numbers each request's `header` after `prefix`, as the wrk script does. */
function uniqueValues(header: string, prefix: string): (request: autocannon.Request) => autocannon.Request {
  let sent = 0;
  return (request) => ({ ...request, headers: { ...request.headers, [header]: `${prefix}${(sent += 1)}` } });
}

async function loadWithAutocannon(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.uniqueHeader ? { requests: [{ setupRequest: uniqueValues(options.uniqueHeader, options.uniquePrefix ?? `${randomUUID()}-`) }] } : {}),
    ...(options.body === undefined ? {} : { body: options.body }),
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    client: 'autocannon',
    perSecond: Math.round(result.requests.average),
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

export async function loadServer(options: LoadOptions): Promise<LoadResult> {
  const useWrk = process.env.BENCH_HTTP_CLIENT !== 'autocannon' && (await hasWrk());
  return useWrk ? loadWithWrk(options) : loadWithAutocannon(options);
}
