import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.js';
import { prepareDatabase, startServer } from './start.js';
import type { BootstrapResult } from '../accounts/bootstrap.js';

interface ListeningMessage {
  type: 'svc:listening';
  url: string;
}

/** A worker could not start (most often: the port is taken); the primary reports it once for all of them. */
interface FailedMessage {
  type: 'svc:failed';
  code: string | null;
  message: string;
}

function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'svc:listening';
}

function isFailedMessage(message: unknown): message is FailedMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'svc:failed';
}

export interface ClusterStarted {
  url: string;
  bootstrap: BootstrapResult;
  stop(): Promise<void>;
}

/**
 * `svc serve --workers N`: N processes share the listening socket, like N replicas on one machine.
 * Everything svc does across replicas is already safe (database transactions, compare-and-swap ref
 * updates), so the workers need no coordination beyond this primary, which migrates and bootstraps
 * once, restarts a worker that dies, and stops them all on a signal.
 */
export async function startClusterPrimary(config: Config, workers: number, log: (line: string) => void): Promise<ClusterStarted> {
  const boot = await prepareDatabase(config);
  let stopping = false;
  const fork = () => cluster.fork();
  const running = new Set<Worker>();
  async function stopAll(): Promise<void> {
    stopping = true;
    await Promise.all(
      [...running].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill('SIGTERM');
          }),
      ),
    );
  }
  const listening = new Promise<string>((resolve, reject) => {
    let ready = 0;
    for (let i = 0; i < workers; i += 1) {
      const worker = fork();
      running.add(worker);
      worker.on('message', (message: unknown) => {
        if (isListeningMessage(message) && ++ready === workers) resolve(message.url);
        if (isFailedMessage(message)) reject(Object.assign(new Error(message.message), { code: message.code ?? undefined }));
      });
      worker.once('exit', (code) => {
        if (ready < workers && !stopping) reject(new Error(`worker ${worker.process.pid} exited with ${code} before listening`));
      });
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    running.delete(worker);
    if (stopping) return;
    log(`svc: worker ${worker.process.pid} exited (${signal ?? code}); starting a replacement`);
    running.add(fork());
  });
  let url: string;
  try {
    url = await listening;
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { url, bootstrap: boot, stop: stopAll };
}

/**
 * A worker: serves requests; the primary did the one-time startup tasks. A worker that cannot start
 * tells the primary why and leaves (null): the primary says it once and stops the others.
 */
export async function startClusterWorker(config: Config, baseUrlExplicit: boolean): Promise<{ close(): Promise<void> } | null> {
  try {
    const server = await startServer(config, { baseUrlExplicit, startupTasks: false });
    process.send?.({ type: 'svc:listening', url: server.url } satisfies ListeningMessage);
    return server;
  } catch (error) {
    const failure: FailedMessage = { type: 'svc:failed', code: (error as NodeJS.ErrnoException).code ?? null, message: String((error as Error).message ?? error) };
    process.exitCode = 1;
    // Closing the channel to the primary after the message lets this process end.
    process.send?.(failure, () => process.disconnect());
    return null;
  }
}

export function isClusterWorker(): boolean {
  return cluster.isWorker;
}
