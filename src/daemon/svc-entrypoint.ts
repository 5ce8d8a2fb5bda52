/**
 * svc-entrypoint, PID 1 of a sandbox: starts svc-agent, restarts it with backoff when it dies, forwards
 * SIGTERM/SIGINT/SIGHUP to it and exits once it has exited. Node cannot wait for arbitrary pids, so the
 * zombies of re-parented grandchildren are reaped only where the container runtime adds an init
 * (`docker run --init`); under the process provider the entrypoint is an ordinary parent.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 10_000;
/** A daemon that ran this long was healthy; its next crash restarts it quickly again. */
const HEALTHY_AFTER_MS = 30_000;

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} svc-entrypoint: ${message}\n`);
}

export function runEntrypoint(agentScript: string, args: readonly string[] = []): void {
  let child: ChildProcess | undefined;
  let stopping: NodeJS.Signals | undefined;
  let backoff = MIN_BACKOFF_MS;
  let restarts = 0;

  const start = () => {
    const startedAt = Date.now();
    const current = spawn(process.execPath, [agentScript, ...args], { stdio: 'inherit', env: { ...process.env, SVC_ENTRYPOINT_RESTARTS: String(restarts) } });
    child = current;
    log(`started svc-agent (pid ${current.pid})`);
    current.on('exit', (code, signal) => {
      child = undefined;
      if (stopping) {
        log(`svc-agent exited (${signal ?? `code ${code}`}) after ${stopping}`);
        process.exit(code ?? 0);
      }
      if (Date.now() - startedAt > HEALTHY_AFTER_MS) backoff = MIN_BACKOFF_MS;
      log(`svc-agent exited (${signal ?? `code ${code}`}); restarting in ${backoff} ms`);
      restarts += 1;
      setTimeout(start, backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    });
  };

  const forward = (signal: NodeJS.Signals) => {
    stopping = signal;
    if (!child) process.exit(0);
    child.kill(signal);
  };
  process.on('SIGTERM', () => forward('SIGTERM'));
  process.on('SIGINT', () => forward('SIGINT'));
  process.on('SIGHUP', () => forward('SIGHUP'));
  start();
}
