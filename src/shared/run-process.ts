/**
 * The daemon's one door to short-lived processes (git): argument arrays only, never a shell, a deadline,
 * bounded output, stdin closed unless given. The daemon may not import svc's server-side git door.
 */
import { spawn } from 'node:child_process';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  stdin?: string;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class ProcessError extends Error {
  constructor(readonly command: string, readonly result: RunResult) {
    super(`${command} failed (exit ${result.code}): ${result.stderr.trim().slice(-2000) || result.stdout.trim().slice(-2000)}`);
  }
}

const MAX_OUTPUT = 4 * 1024 * 1024;

export function runProcess(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    // A process that exits without reading its stdin must not crash the daemon with EPIPE.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
  });
}

export async function runChecked(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const result = await runProcess(file, args, options);
  if (result.code !== 0) throw new ProcessError(`${file} ${args.filter((arg) => !arg.includes('://')).slice(0, 3).join(' ')}`, result);
  return result;
}
