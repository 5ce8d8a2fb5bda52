import { availableParallelism } from 'node:os';
import path from 'node:path';

/** Enough drawings of every chart kind for V8 to compile ECharts' hot paths (see web/render-warmup.ts). */
const DEFAULT_RENDER_WARMUP_ROUNDS = 6;
/**
 * What one chart may cost a page: a few seconds of a person's wait, and of a render thread that other
 * pages wait for. The gallery's charts take milliseconds each; the largest a spec allows, well under a second.
 */
const DEFAULT_RENDER_CHART_TIMEOUT_MS = 5_000;

/** Everything `svc serve` reads from flags and the environment (contract §1). */
export interface Config {
  host: string;
  port: number;
  /** Public origin without a trailing slash, used in links and clone URLs. */
  baseUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  adminToken: string | undefined;
  mergeAuthor: { name: string; email: string };
  logLevel: string;
  /**
   * Worker threads per pool for CPU-heavy work (validating published dashboards, drawing pages);
   * 0 does that work in the thread that answers requests.
   */
  threads: number;
  /**
   * Threads that draw dashboard pages (0: in the thread that answers requests). They run at low
   * priority, so by default there is one per core: a page's charts are drawn side by side.
   */
  renderThreads: number;
  /** A page render running longer than this is stopped. */
  renderTimeoutMs: number;
  /** Times each render thread draws the warm-up samples when it starts (see render-warmup.ts); 0 for none. */
  renderWarmupRounds: number;
  /** One chart drawing running longer than this is stopped and its chart says why (at most renderTimeoutMs). */
  renderChartTimeoutMs: number;
}

export interface ConfigOverrides {
  host?: string | undefined;
  port?: number | undefined;
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
  baseUrl?: string | undefined;
  adminToken?: string | undefined;
  logLevel?: string | undefined;
  threads?: number | undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv, overrides: ConfigOverrides = {}): Config {
  const host = overrides.host ?? env.SVC_HOST ?? '127.0.0.1';
  const port = overrides.port ?? parsePort(env.SVC_PORT) ?? 8080;
  const threadsGiven = overrides.threads ?? parseCount('SVC_THREADS', env.SVC_THREADS, 0, 64);
  const threads = threadsGiven ?? defaultThreads();
  const baseUrl = (overrides.baseUrl ?? env.SVC_BASE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  return {
    host,
    port,
    baseUrl,
    dataDir: path.resolve(overrides.dataDir ?? env.SVC_DATA_DIR ?? './.svc-data'),
    databaseUrl: overrides.databaseUrl ?? (env.DATABASE_URL || undefined),
    adminToken: overrides.adminToken ?? (env.SVC_ADMIN_TOKEN || undefined),
    mergeAuthor: {
      name: env.SVC_MERGE_AUTHOR_NAME || 'svc',
      email: env.SVC_MERGE_AUTHOR_EMAIL || 'svc@noreply.invalid',
    },
    logLevel: overrides.logLevel ?? env.SVC_LOG_LEVEL ?? 'info',
    threads,
    renderThreads: parseCount('SVC_RENDER_THREADS', env.SVC_RENDER_THREADS, 0, 64) ?? (threadsGiven !== undefined ? threadsGiven : Math.min(4, availableParallelism())),
    renderTimeoutMs: parseCount('SVC_RENDER_TIMEOUT_MS', env.SVC_RENDER_TIMEOUT_MS, 100, 600_000) ?? 20_000,
    renderWarmupRounds: parseCount('SVC_RENDER_WARMUP_ROUNDS', env.SVC_RENDER_WARMUP_ROUNDS, 0, 50) ?? DEFAULT_RENDER_WARMUP_ROUNDS,
    renderChartTimeoutMs: parseCount('SVC_RENDER_CHART_TIMEOUT_MS', env.SVC_RENDER_CHART_TIMEOUT_MS, 100, 600_000) ?? DEFAULT_RENDER_CHART_TIMEOUT_MS,
  };
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`SVC_PORT must be a port number from 0 to 65535 (got ${JSON.stringify(value)})`);
  }
  return port;
}

function parseCount(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < min || count > max) {
    throw new Error(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(value)})`);
  }
  return count;
}

/** Threads by default: one per core, less the one that answers requests (at least one, at most four). */
function defaultThreads(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}
