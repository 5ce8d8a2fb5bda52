import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Runs SQLite's WAL checkpoints on a worker thread instead of inside whichever request happens to
 * cross the auto-checkpoint threshold. A checkpoint copies pages back into the database file and
 * fsyncs it; done inline it doubled the cost of a 20 KB publish and put multi-millisecond stalls
 * into tail latency. PASSIVE checkpoints never block the writer.
 *
 * Under steady writes a PASSIVE checkpoint never catches up with the last commit, so SQLite never
 * starts the log again from its beginning: it grew by the size of every publish (gigabytes after
 * minutes of load), and each commit paid the file system for new blocks. Once the log is over
 * `restartBytes`, more PASSIVE passes copy what was committed during the previous one until little
 * is left, and a RESTART checkpoint copies the rest, holding writers back for that long (a RESTART
 * straight after the first pass held them for its whole backlog: 20 ms at p99), so the next commit
 * writes from the start of the log again, over blocks the file already has.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
db.pragma('journal_size_limit = ' + workerData.restartBytes);
const frameBytes = db.pragma('page_size', { simple: true }) + 24;
/** Frames in the log after a PASSIVE pass: the pass copied all of them that no reader still needs. */
function passiveFrames() {
  return db.pragma('wal_checkpoint(PASSIVE)', { simple: false })[0].log;
}
const timer = setInterval(() => {
  try {
    // The frames in use, not the file's size: a log started again keeps its file and fills it anew.
    let frames = passiveFrames();
    if (frames * frameBytes <= workerData.restartBytes) return;
    for (let pass = 0; pass < 4; pass += 1) {
      const before = frames;
      frames = passiveFrames();
      if (frames - before < workerData.smallBacklogFrames) break;
    }
    db.pragma('wal_checkpoint(RESTART)');
  } catch { /* busy or closing: the next tick retries */ }
}, workerData.intervalMs);
parentPort.postMessage('ready');
parentPort.on('message', () => {
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(PASSIVE)'); db.close(); } catch { /* already closed */ }
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Settles once the thread has opened the database and checkpoints on its interval. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

/** The size past which the log is started again from its beginning, and to which it is cut back. */
export const WAL_RESTART_BYTES = 64 * 1024 * 1024;
/** A pass that found fewer new frames (4 KB pages) than this has caught up with the writers. */
const SMALL_BACKLOG_FRAMES = 256;

export function startCheckpointer(file: string, options: { intervalMs?: number; restartBytes?: number } = {}): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const workerData = { file, driverPath, intervalMs: options.intervalMs ?? 200, restartBytes: options.restartBytes ?? WAL_RESTART_BYTES, smallBacklogFrames: SMALL_BACKLOG_FRAMES };
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  // The checkpointer must never keep the process alive on its own.
  worker.unref();
  return {
    ready: new Promise<void>((resolve) => worker.once('message', () => resolve())),
    stop: () =>
      new Promise<void>((resolve) => {
        // Waiting for the exit must keep the process alive until the final checkpoint is done.
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('stop');
      }),
  };
}
