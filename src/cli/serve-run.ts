import path from 'node:path';
import type { BootstrapResult } from '../accounts/bootstrap.js';
import { loadConfig, type Config } from '../config.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { isClusterWorker, startClusterPrimary, startClusterWorker } from '../server/cluster.js';
import { startServer } from '../server/start.js';
import { SandboxUnavailableError } from '../sessions/providers/unavailable.js';
import { CliError } from './deps.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  workers?: number;
}

/** What to do about a server that could not listen, in one line; null for failures that are not about listening. */
function listenFailure(error: unknown, config: Config): CliError | null {
  if (error instanceof SandboxUnavailableError) return new CliError(error.message);
  switch ((error as NodeJS.ErrnoException | null)?.code) {
    case 'EADDRINUSE':
      return new CliError(`port ${config.port} is already in use; pass --port N or stop the other server`);
    case 'EACCES':
      return new CliError(`no permission to listen on port ${config.port} (ports below 1024 need privileges); pass --port N`);
    case 'EADDRNOTAVAIL':
      return new CliError(`${config.host} is not an address of this machine; pass --host 127.0.0.1, or 0.0.0.0 for every interface`);
    default:
      return null;
  }
}

async function listening<T>(start: () => Promise<T>, config: Config): Promise<T> {
  try {
    return await start();
  } catch (error) {
    throw listenFailure(error, config) ?? error;
  }
}

export async function runServe(options: ServeOptions, env: NodeJS.ProcessEnv): Promise<void> {
  let config: Config;
  let workers: number;
  try {
    config = loadConfig(env, { port: options.port, host: options.host, dataDir: options.dataDir });
    workers = options.workers ?? parseWorkers(env.SVC_WORKERS);
  } catch (error) {
    // SVC_PORT, SVC_WORKERS, …: the environment is part of how svc serve was invoked.
    throw new CliError(error instanceof Error ? error.message : String(error), 2);
  }
  const baseUrlExplicit = Boolean(env.SVC_BASE_URL);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const database = config.databaseUrl?.startsWith('postgres') ? 'PostgreSQL' : `SQLite in ${config.dataDir}`;

  // Installed before anything is announced: a signal that arrives while svc starts or prints its
  // banner would otherwise end the process at once, without closing the database.
  let server: { close(): Promise<void> } | undefined;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    if (!isClusterWorker()) log(`svc: ${signal} received, shutting down`);
    (server?.close() ?? Promise.resolve()).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`svc: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));

  if (isClusterWorker()) {
    const worker = await startClusterWorker(config, baseUrlExplicit);
    // It could not start and told the primary, which says why.
    if (!worker) return;
    server = worker;
  } else if (workers > 1) {
    const primary = await listening(() => startClusterPrimary(config, workers, log), config);
    server = { close: () => primary.stop() };
    announce(primary.url, `${database}; ${workers} workers`, primary.bootstrap);
  } else {
    const single = await listening(() => startServer(config, { baseUrlExplicit }), config);
    server = single;
    announce(single.url, database, single.bootstrap);
  }

  function announce(url: string, detail: string, boot: BootstrapResult) {
    log(`svc serving on ${url} (public URL ${baseUrlExplicit ? config.baseUrl : url}; ${detail})`);
    if (!baseUrlExplicit && isWildcardHost(config.host)) {
      log(`svc: links, clone URLs and SVC_API_URL will name ${url}, which no browser or git client can reach; set SVC_BASE_URL to the address people use (e.g. http://<this machine's name>:${new URL(url).port}).`);
    }
    if (boot.generatedToken) {
      log(
        `\nAdmin token (shown once, also written to ${boot.tokenFile}):\n\n  ${boot.generatedToken}\n\n` +
          `Log the CLI in with:  svc login --url ${baseUrlExplicit ? config.baseUrl : url} --token <token>\n` +
          `(${svcCommandHint()})\n`,
      );
    }
  }
}

/**
 * How to get the `svc` command: never `npx svc`, which outside this checkout fetches an unrelated package
 * of the same name from the public registry and runs it.
 */
export function svcCommandHint(): string {
  return `svc is this checkout's CLI: run npm link once in ${PACKAGE_ROOT} to put it on your PATH, or run node ${path.join(PACKAGE_ROOT, 'bin', 'svc.js')}`;
}

/** An address that means "every interface": fine to listen on, useless in a link. */
function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

function parseWorkers(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error(`SVC_WORKERS must be an integer from 1 to 64 (got ${JSON.stringify(value)})`);
  return workers;
}
