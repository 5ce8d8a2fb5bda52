import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The built CLI entry (bench runs from dist/bench). */
export const cliEntry = path.resolve(here, '../src/cli/main.js');

export interface BenchServer {
  url: string;
  token: string;
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * The server under test runs in its own process, as an operator runs it, so the load generator in this
 * process does not share its event loop.
 */
export async function startBenchServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const token = 'svc_u_bench_token';
  const child: ChildProcess = spawn(process.execPath, [cliEntry, 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, SVC_ADMIN_TOKEN: token, SVC_LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /serving on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    token,
    dataDir,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Median wall time in ms of `runs` calls, after `warmup` unmeasured ones. */
export async function timeMedian(runs: number, warmup: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < warmup; i += 1) await fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}
