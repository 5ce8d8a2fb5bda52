/**
 * The agent runtime's process: `opencode serve` on 127.0.0.1:<runtime port> in the workspace, with its
 * HOME and config directory, the offline settings and the sandbox's full environment. Restarted with
 * backoff when it dies; `restart()` replaces it in place (refresh, new environment).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { RuntimeClient } from './runtime-client.js';
import { prepareConfigDirectory, prepareRuntimeHome, RUNTIME_OFFLINE_ENV } from './runtime-offline.js';
import type { DaemonSettings } from './settings.js';

export type RuntimeState = 'stopped' | 'booting' | 'ready' | 'crashed';

export interface RuntimeProcessOptions {
  settings: DaemonSettings;
  configDirectory: () => string;
  /** Variables set through `POST /svc/env`, over the daemon's own environment. */
  envOverrides: () => Record<string, string | null>;
  /** Called each time a new runtime process answers (a cold boot of the runtime). */
  onReady: () => void;
  log: (message: string) => void;
}

const STOP_GRACE_MS = 3000;
const PID_FILE = 'svc-runtime.pid';
const MAX_BACKOFF_MS = 10_000;

export class RuntimeProcess {
  state: RuntimeState = 'stopped';
  error: string | null = null;
  restarts = 0;
  readyAt: string | null = null;
  readonly client: RuntimeClient;
  private child: ChildProcess | undefined;
  private wanted = false;
  private backoffMs = 250;
  private generation = 0;
  private stderrTail = '';

  constructor(private readonly options: RuntimeProcessOptions) {
    this.client = new RuntimeClient(options.settings.runtimePort);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  environment(): NodeJS.ProcessEnv {
    const s = this.options.settings;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [name, value] of Object.entries(this.options.envOverrides())) {
      if (value === null) delete env[name];
      else env[name] = value;
    }
    return { ...env, ...RUNTIME_OFFLINE_ENV, HOME: s.runtimeHome, OPENCODE_CONFIG_DIR: this.options.configDirectory() };
  }

  start(): void {
    this.wanted = true;
    this.spawnOnce();
  }

  /**
   * A daemon that was killed leaves its runtime running (its own process group) on the runtime port; the
   * next daemon ends that group before starting its own runtime.
   */
  endOrphan(): void {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(path.join(this.options.settings.runtimeHome, PID_FILE), 'utf8').trim());
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 1) return;
    try {
      // Only if that pid still runs the runtime command: pids are reused.
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!command.includes('serve') || !command.includes(`--port\0${this.options.settings.runtimePort}`)) return;
      process.kill(-pid, 'SIGKILL');
      this.options.log(`ended the runtime a previous daemon left running (pid ${pid})`);
    } catch {}
  }

  private spawnOnce(): void {
    const s = this.options.settings;
    const generation = ++this.generation;
    this.state = 'booting';
    this.readyAt = null;
    this.stderrTail = '';
    fs.mkdirSync(s.runtimeHome, { recursive: true });
    prepareRuntimeHome(s.runtimeHome);
    const configDirectory = this.options.configDirectory();
    prepareConfigDirectory(configDirectory);
    const projectDirectory = path.join(s.workspace, '.opencode');
    if (fs.existsSync(projectDirectory)) prepareConfigDirectory(projectDirectory);
    let child: ChildProcess;
    try {
      // Its own process group, so stopping it also stops what it started.
      child = spawn(s.runtimeCommand, ['serve', '--port', String(s.runtimePort), '--hostname', '127.0.0.1'], { cwd: s.workspace, env: this.environment(), stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    } catch (error) {
      this.crashed(generation, `The runtime command "${s.runtimeCommand}" could not start: ${(error as Error).message}`);
      return;
    }
    this.child = child;
    if (child.pid) fs.writeFileSync(path.join(s.runtimeHome, PID_FILE), `${child.pid}\n`);
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-4000);
    });
    child.on('error', (error) => this.crashed(generation, `The runtime command "${s.runtimeCommand}" could not start: ${error.message}`));
    child.on('exit', (code, signal) => this.crashed(generation, `The runtime exited (${signal ?? `code ${code}`}): ${this.stderrTail.trim().slice(-1000)}`));
    void this.waitReady(generation);
  }

  private async waitReady(generation: number): Promise<void> {
    const booting = () => generation === this.generation && this.state === 'booting';
    if (!(await this.client.waitAnswering(booting)) || !booting()) return;
    this.state = 'ready';
    this.error = null;
    this.readyAt = new Date().toISOString();
    this.backoffMs = 250;
    this.options.log(`runtime ready (pid ${this.child?.pid})`);
    this.options.onReady();
  }

  private crashed(generation: number, message: string): void {
    if (generation !== this.generation) return;
    this.generation += 1;
    this.child = undefined;
    if (!this.wanted) {
      this.state = 'stopped';
      return;
    }
    this.state = 'crashed';
    this.error = message;
    this.restarts += 1;
    this.options.log(message);
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    const expected = this.generation;
    setTimeout(() => {
      if (this.wanted && this.generation === expected) this.spawnOnce();
    }, delay).unref();
  }

  /** Stops the process group: SIGTERM, then SIGKILL after a grace period. */
  async stop(): Promise<void> {
    this.wanted = false;
    this.generation += 1;
    const child = this.child;
    this.child = undefined;
    this.state = 'stopped';
    if (!child || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {}
    };
    signalGroup('SIGTERM');
    const timer = setTimeout(() => signalGroup('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    signalGroup('SIGKILL');
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }
}
