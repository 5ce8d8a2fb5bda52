import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Runs SQLite's WAL checkpoints on a worker thread instead of inside whichever request happens to
 * cross the auto-checkpoint threshold. A checkpoint copies pages back into the database file and
 * fsyncs it; done inline it doubled the cost of a 20 KB publish and put multi-millisecond stalls
 * into tail latency. PASSIVE checkpoints never block the writer.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch { /* busy or closing: the next tick retries */ }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(PASSIVE)'); db.close(); } catch { /* already closed */ }
  parentPort.close();
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, options: { intervalMs?: number } = {}): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driverPath, intervalMs: options.intervalMs ?? 200 } });
  // The checkpointer must never keep the process alive on its own.
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        // Waiting for the exit must keep the process alive until the final checkpoint is done.
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
}
