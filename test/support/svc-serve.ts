/**
 * `svc serve` as a user runs it, in a child process that a test may kill (a crash) and start again on the
 * same data directory and database, with an admin token the test knows.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './runtime-fixture.js';

export const SERVE_TOKEN = 'svc_u_crash_test_token_0123456789';

export interface ServedSvc {
  url: string;
  child: ChildProcess;
  /** SIGKILL, as a crash, and waits for the process to end. */
  kill(): Promise<void>;
}

/** Starts `svc serve --port 0` and resolves once it says where it serves; `env` is added to this process's. */
export async function serveSvc(dataDir: string, env: Record<string, string>): Promise<ServedSvc> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'svc.js'), 'serve', '--port', '0', '--data-dir', dataDir], {
    env: { ...process.env, DATABASE_URL: '', SVC_ADMIN_TOKEN: SERVE_TOKEN, SVC_LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /serving on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`svc serve exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    child,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A JSON request to a served svc with its admin token: status and parsed body. */
export async function serveApi(url: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url + route, { method, headers: { authorization: `Bearer ${SERVE_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
