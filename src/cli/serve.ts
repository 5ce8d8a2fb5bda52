import type { Command } from 'commander';
import { parseIntegerOption } from './options.js';
import type { ServeOptions } from './serve-run.js';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the control plane: REST API, web UI and git host (SQLite by default; DATABASE_URL=postgres://… for PostgreSQL)')
    .option('--port <port>', 'port to listen on (SVC_PORT, default 8080)', parseIntegerOption('--port', 0, 65535))
    .option('--host <host>', 'address to bind (SVC_HOST, default 127.0.0.1)')
    .option('--data-dir <dir>', 'SQLite file, repositories and mirrors (SVC_DATA_DIR, default ./.svc-data)')
    .option('--workers <n>', 'processes sharing the port, like replicas on one machine (SVC_WORKERS, default 1)', parseIntegerOption('--workers', 1, 64))
    .action(async (options: ServeOptions) => {
      // The server (Fastify, ECharts, database drivers) loads only for `serve`, so every other
      // command starts in a fraction of the time.
      const { runServe } = await import('./serve-run.js');
      await runServe(options, process.env);
    });
}

