import { availableParallelism } from 'node:os';
import path from 'node:path';

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
  /** A page render running longer than this is stopped. */
  renderTimeoutMs: number;
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
    threads: overrides.threads ?? parseCount('SVC_THREADS', env.SVC_THREADS, 0, 64) ?? defaultThreads(),
    renderTimeoutMs: parseCount('SVC_RENDER_TIMEOUT_MS', env.SVC_RENDER_TIMEOUT_MS, 100, 600_000) ?? 20_000,
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
