import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
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
  pid: number;
  stop(): Promise<void>;
}

export interface BenchServerOptions {
  /** Replicas share one data directory (the hosted repositories); the caller removes it. */
  dataDir?: string;
}

/**
 * The server under test runs in its own process, as an operator runs it, so the load generator in this
 * process does not share its event loop.
 */
export async function startBenchServer(env: Record<string, string> = {}, options: BenchServerOptions = {}): Promise<BenchServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const token = 'svc_u_bench_token';
  // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server under test.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, cliEntry, 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, SVC_ADMIN_TOKEN: token, SVC_LOG_LEVEL: 'warn', DATABASE_URL: '', ...env },
    stdio: ['ignore', process.env.BENCH_SERVER_LOG ? 'pipe' : 'ignore', 'pipe'],
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
  // BENCH_SERVER_LOG=file keeps what the server under test printed (its warnings and errors).
  const logFile = process.env.BENCH_SERVER_LOG;
  if (logFile) for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => fs.appendFileSync(logFile, chunk));
  return {
    url,
    token,
    dataDir,
    pid: child.pid ?? 0,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      stopSandboxes(dataDir);
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU seconds a process has used, all its threads (utime and stime of /proc/<pid>/stat). */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime, fields 14 and 15 of stat (11 and 12 after the command name).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * Waits until the server under test has finished what it does once after starting (its render threads' warm-up
 * charts among it), so that a figure is the server's steady state and not its start-up: until it uses under 5% of
 * a core over half a second, at most `timeoutMs`. Returns how long it waited.
 */
export async function waitUntilIdle(pid: number, timeoutMs = 30_000): Promise<number> {
  const started = Date.now();
  const windowMs = 500;
  while (Date.now() - started < timeoutMs) {
    const before = cpuSeconds(pid);
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    if ((cpuSeconds(pid) - before) / (windowMs / 1000) < 0.05) break;
  }
  return Date.now() - started;
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

/** One API call as the bench server's administrator; throws on anything but 2xx. */
export async function benchApi(server: BenchServer, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(server.url + route, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A hosted project whose first commit, pushed as main, holds `files`; returns its id. */
export async function benchProject(server: BenchServer, files: Record<string, string>): Promise<string> {
  const { project } = await benchApi(server, 'POST', '/v1/projects', { name: `Bench ${Date.now()}` });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-work-'));
  const git = (args: string[]) => execFileSync('git', args, { cwd: work, stdio: 'pipe' });
  git(['init', '-q', '-b', 'main']);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), text);
  }
  git(['add', '-A']);
  git(['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'Start']);
  const url = new URL(project.clone_url);
  url.username = 'x';
  url.password = server.token;
  git(['push', '-q', url.toString(), 'HEAD:main']);
  fs.rmSync(work, { recursive: true, force: true });
  return project.id;
}

/** Sandboxes outlive their server (a restart adopts them); a bench's go with it: each sandbox's process group. */
export function stopSandboxes(dataDir: string): void {
  const root = path.join(dataDir, 'sandboxes');
  if (!fs.existsSync(root)) return;
  for (const id of fs.readdirSync(root)) {
    try {
      const { pid } = JSON.parse(fs.readFileSync(path.join(root, id, 'sandbox.json'), 'utf8')) as { pid: number };
      // The runtime runs in a process group of its own: every descendant, read before anything exits.
      const tree = [pid];
      for (let index = 0; index < tree.length; index++) {
        const children = fs.readFileSync(`/proc/${tree[index]}/task/${tree[index]}/children`, 'utf8').trim();
        if (children) tree.push(...children.split(/\s+/).map(Number));
      }
      for (const member of tree) process.kill(member, 'SIGKILL');
    } catch {
      // Not started, or already gone.
    }
  }
}
