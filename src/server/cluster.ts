import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.js';
import { prepareDatabase, startServer } from './start.js';
import type { BootstrapResult } from '../accounts/bootstrap.js';

interface ListeningMessage {
  type: 'svc:listening';
  url: string;
}

function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'svc:listening';
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
  const listening = new Promise<string>((resolve, reject) => {
    let ready = 0;
    for (let i = 0; i < workers; i += 1) {
      const worker = fork();
      running.add(worker);
      worker.on('message', (message: unknown) => {
        if (isListeningMessage(message) && ++ready === workers) resolve(message.url);
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
  const url = await listening;
  return {
    url,
    bootstrap: boot,
    async stop() {
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
    },
  };
}

/** A worker: serves requests; the primary did the one-time startup tasks. */
export async function startClusterWorker(config: Config, baseUrlExplicit: boolean): Promise<{ close(): Promise<void> }> {
  const server = await startServer(config, { baseUrlExplicit, startupTasks: false });
  process.send?.({ type: 'svc:listening', url: server.url } satisfies ListeningMessage);
  return server;
}

export function isClusterWorker(): boolean {
  return cluster.isWorker;
}
