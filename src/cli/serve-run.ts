import type { BootstrapResult } from '../accounts/bootstrap.js';
import { loadConfig } from '../config.js';
import { isClusterWorker, startClusterPrimary, startClusterWorker } from '../server/cluster.js';
import { startServer } from '../server/start.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  workers?: number;
}

export async function runServe(options: ServeOptions, env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env, { port: options.port, host: options.host, dataDir: options.dataDir });
  const baseUrlExplicit = Boolean(env.SVC_BASE_URL);
  const workers = options.workers ?? parseWorkers(env.SVC_WORKERS);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const database = config.databaseUrl?.startsWith('postgres') ? 'PostgreSQL' : `SQLite in ${config.dataDir}`;

  let server: { close(): Promise<void> };
  if (isClusterWorker()) {
    server = await startClusterWorker(config, baseUrlExplicit);
  } else if (workers > 1) {
    const primary = await startClusterPrimary(config, workers, log);
    server = { close: () => primary.stop() };
    announce(primary.url, `${database}; ${workers} workers`, primary.bootstrap);
  } else {
    const single = await startServer(config, { baseUrlExplicit });
    server = single;
    announce(single.url, database, single.bootstrap);
  }

  function announce(url: string, detail: string, boot: BootstrapResult) {
    log(`svc serving on ${url} (public URL ${baseUrlExplicit ? config.baseUrl : url}; ${detail})`);
    if (boot.generatedToken) {
      log(
        `\nAdmin token (shown once, also written to ${boot.tokenFile}):\n\n  ${boot.generatedToken}\n\n` +
          `Log the CLI in with:  svc login --url ${baseUrlExplicit ? config.baseUrl : url} --token <token>\n`,
      );
    }
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    if (!isClusterWorker()) log(`svc: ${signal} received, shutting down`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`svc: shutdown failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

function parseWorkers(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) throw new Error(`SVC_WORKERS must be an integer from 1 to 64 (got ${JSON.stringify(value)})`);
  return workers;
}
