import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { startServer } from '../server/start.js';
import { parseIntegerOption } from './options.js';

export interface ServeOptions {
  port?: number;
  host?: string;
  dataDir?: string;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the control plane: REST API, web UI, git host, scheduler (SQLite by default; DATABASE_URL=postgres://… for PostgreSQL)')
    .option('--port <port>', 'port to listen on (SVC_PORT, default 8080)', parseIntegerOption('--port', 0, 65535))
    .option('--host <host>', 'address to bind (SVC_HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'SQLite file, repositories and mirrors (SVC_DATA_DIR, default ./.svc-data)')
    .action(async (options: ServeOptions) => {
      await runServe(options, process.env);
    });
}

export async function runServe(options: ServeOptions, env: NodeJS.ProcessEnv): Promise<void> {
  const config = loadConfig(env, { port: options.port, host: options.host, dataDir: options.dataDir });
  const server = await startServer(config, { baseUrlExplicit: Boolean(env.SVC_BASE_URL) });
  const database = server.services.dialect === 'postgres' ? 'PostgreSQL' : `SQLite in ${config.dataDir}`;
  process.stderr.write(`svc serving on ${server.url} (public URL ${config.baseUrl}; ${database})\n`);
  if (server.bootstrap.generatedToken) {
    process.stderr.write(
      `\nAdmin token (shown once, also written to ${server.bootstrap.tokenFile}):\n\n  ${server.bootstrap.generatedToken}\n\n` +
        `Log the CLI in with:  svc login --url ${config.baseUrl} --token <token>\n\n`,
    );
  }
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`svc: ${signal} received, shutting down\n`);
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
