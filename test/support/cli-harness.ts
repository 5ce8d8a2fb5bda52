import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { CliDeps } from '../../src/cli/deps.js';
import type { TestServer } from './test-server.js';

export interface CapturedDeps extends CliDeps {
  out(): string;
  err(): string;
}

/** Deps for running a command in-process, as a terminal (isTTY) or as a pipe. */
export function captureDeps(options: { env?: NodeJS.ProcessEnv; isTTY?: boolean; stdin?: string; cwd?: string } = {}): CapturedDeps {
  let out = '';
  let err = '';
  return {
    env: { SVC_CONFIG_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cli-config-')), ...options.env },
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    isTTY: options.isTTY ?? false,
    stdin: Readable.from([Buffer.from(options.stdin ?? '')]),
    cwd: options.cwd ?? process.cwd(),
    now: () => new Date(),
    out: () => out,
    err: () => err,
  };
}

/** The CLI's environment outside a sandbox, as the server's administrator: the API base (ending in /v1) and the admin token. */
export function adminCliEnv(svc: TestServer): NodeJS.ProcessEnv {
  return { SVC_API_URL: `${svc.url}/v1`, SVC_CLI_TOKEN: svc.adminToken };
}

export const cliBinary = path.resolve(import.meta.dirname, '../../bin/svc.js');

/** Runs the real `svc` binary (dist/ is built by vitest's global set-up, test/support/build-once.ts). */
/** `closeStdout`: the reader of standard output goes away at once, as `| head -1` does once it has its line. */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; closeStdout?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBinary, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    if (options.closeStdout) child.stdout.destroy();
    else child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
