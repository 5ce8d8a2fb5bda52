/**
 * The `process` provider (contract §6): a sandbox is a directory holding its workspace and runtime home,
 * and svc-entrypoint runs as an ordinary child process on free loopback ports. It isolates nothing: the
 * agent has the host, as the user running svc. It limits nothing either: no memory, CPU, process or disk
 * limit (the manifest's `sandbox:` settings are ignored), so an agent may fill the host's disk. For development and tests; the README says so. It runs the
 * same bundled programs as the isolating providers (sandbox-programs.ts), with the runtime installed with svc.
 *
 * The entrypoint runs in a process group of its own, detached from svc, so a restart of svc finds its
 * sandboxes still running, and stopping one ends everything it started (daemon, runtime, shells).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { alive, endProcessTree } from './host-processes.js';
import type { SandboxProvider, SandboxStart, StartedSandbox } from './provider.js';
import { SandboxFiles, sandboxEndedReason } from './sandbox-file.js';
import { SHIPPED_RUNTIME_COMMAND, sandboxBundles } from './sandbox-programs.js';

interface SandboxFile {
  pid: number;
  daemonPort: number;
  runtimePort: number;
}

export interface ProcessProviderOptions {
  /** `<data dir>/sandboxes`: one directory per session. */
  root: string;
  runtimeCommand?: string | undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export class ProcessProvider implements SandboxProvider {
  readonly name = 'process' as const;
  readonly isolates = false;

  private readonly files: SandboxFiles<SandboxFile>;

  constructor(private readonly options: ProcessProviderOptions) {
    this.files = new SandboxFiles(options.root);
  }

  directory(sessionId: string): string {
    return this.files.directory(sessionId);
  }

  async prepare(): Promise<void> {
    // A process sandbox needs only Node, which runs svc, and the bundled programs.
    sandboxBundles();
  }

  async start(sandbox: SandboxStart): Promise<StartedSandbox> {
    const dir = this.directory(sandbox.sessionId);
    const previous = this.files.read(sandbox.sessionId);
    if (previous && alive(previous.pid)) return { ref: dir, daemonUrl: `http://127.0.0.1:${previous.daemonPort}` };
    // Processes of a sandbox whose entrypoint was killed alone would hold on to its workspace.
    if (previous) await endProcessTree(previous.pid, sandbox.sessionId);
    const workspace = path.join(dir, 'workspace');
    const home = path.join(dir, 'home');
    const binDir = path.join(dir, 'bin');
    for (const folder of [workspace, home, binDir]) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const programs = sandboxBundles();
    // `svc` on the agent's PATH, as in every sandbox; replaced, so a sandbox resumed after an upgrade runs this svc's.
    const svcLink = path.join(binDir, 'svc');
    fs.rmSync(svcLink, { force: true });
    fs.symlinkSync(programs.svc, svcLink);
    const [daemonPort, runtimePort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      PATH: `${binDir}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
      LANG: process.env.LANG ?? 'C.UTF-8',
      ...sandbox.env,
      SVC_SERVICE_PORT: String(daemonPort),
      SVC_RUNTIME_PORT: String(runtimePort),
      SVC_WORKSPACE: workspace,
      SVC_RUNTIME_HOME: home,
      SVC_RUNTIME_COMMAND: this.options.runtimeCommand ?? SHIPPED_RUNTIME_COMMAND,
      HOME: home,
    };
    const log = fs.openSync(path.join(dir, 'sandbox.log'), 'a', 0o600);
    const child = spawn(process.execPath, [programs['svc-entrypoint']], { cwd: dir, env, detached: true, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    const pid = child.pid;
    if (pid === undefined) throw new Error('svc-entrypoint could not be started');
    child.unref();
    this.files.write(sandbox.sessionId, { pid, daemonPort, runtimePort });
    return { ref: dir, daemonUrl: `http://127.0.0.1:${daemonPort}` };
  }

  async stop(sessionId: string): Promise<void> {
    const file = this.files.read(sessionId);
    if (file) await endProcessTree(file.pid, sessionId);
  }

  async remove(sessionId: string): Promise<void> {
    await this.stop(sessionId);
    // A process killed a moment ago may still be writing its last files (ENOTEMPTY): Node retries those.
    fs.rmSync(this.directory(sessionId), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  async isAlive(sessionId: string): Promise<boolean> {
    const file = this.files.read(sessionId);
    return file !== null && alive(file.pid);
  }

  async endedReason(sessionId: string): Promise<string> {
    return sandboxEndedReason(this.directory(sessionId));
  }
}
