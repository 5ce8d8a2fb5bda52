/**
 * Runs the real daemon (bin/svc-entrypoint.js → bin/svc-agent.js, built into dist/) with the real runtime,
 * the scripted model, and the sandbox API stub serving a real git repository over HTTP.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { signUserContext } from '../../src/shared/user-context.js';
import { startSandboxApiStub, type SandboxApiStub } from './sandbox-api-stub.js';
import { startScriptedModel, type ScriptedModel, type ScriptStep } from './scripted-model.js';
import { opencodeBinary, repoRoot, scriptedRuntimeConfig } from './runtime-fixture.js';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface DaemonFixture {
  root: string;
  projectId: string;
  sessionId: string;
  sandboxToken: string;
  workspace: string;
  runtimeHome: string;
  servicePort: number;
  runtimePort: number;
  url: string;
  api: SandboxApiStub;
  model: ScriptedModel;
  env: Record<string, string>;
  entrypoint: ChildProcess | undefined;
  log: () => string;
  start(): Promise<void>;
  stop(): Promise<void>;
  context(options?: { at?: number; token?: string }): string;
  request(method: string, route: string, options?: { context?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  health(): Promise<any>;
  waitHealth(predicate: (health: any) => boolean): Promise<any>;
  close(): Promise<void>;
}

export async function createDaemonFixture(options: { script?: ScriptStep[]; initialPrompt?: string; env?: Record<string, string> } = {}): Promise<DaemonFixture> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-daemon-'));
  const projectId = randomUUID();
  const sessionId = randomUUID();
  const sandboxToken = `svc_s_${randomBytes(16).toString('hex')}`;
  const gitRoot = path.join(root, 'git');
  const model = await startScriptedModel(options.script ?? []);
  const api = await startSandboxApiStub({ projectId, sandboxToken, gitRoot });

  // The project repository: main with the runtime config, and the session branch cut from it.
  const seed = path.join(root, 'seed');
  execFileSync('git', ['init', '-q', '-b', 'main', seed]);
  fs.mkdirSync(path.join(seed, '.svc', 'runtime'), { recursive: true });
  fs.writeFileSync(path.join(seed, '.svc', 'runtime', 'opencode.json'), JSON.stringify(scriptedRuntimeConfig(model.baseUrl), null, 2) + '\n');
  fs.writeFileSync(path.join(seed, 'README.md'), '# project\n');
  execFileSync('git', ['-C', seed, 'add', '.']);
  execFileSync('git', ['-C', seed, '-c', 'user.name=Seed', '-c', 'user.email=seed@example.com', 'commit', '-q', '-m', 'Project with a runtime config']);
  fs.mkdirSync(gitRoot);
  execFileSync('git', ['clone', '-q', '--bare', seed, path.join(gitRoot, 'repo.git')]);
  execFileSync('git', ['-C', path.join(gitRoot, 'repo.git'), 'branch', sessionId, 'main']);

  const workspace = path.join(root, 'workspace');
  const runtimeHome = path.join(root, 'home');
  const servicePort = await freePort();
  const runtimePort = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    SVC_PROJECT_ID: projectId,
    SVC_SESSION_ID: sessionId,
    SVC_BRANCH_NAME: sessionId,
    SVC_REPO_URL: api.repoUrl('repo.git'),
    SVC_DEFAULT_BRANCH: 'main',
    SVC_BASE_REF: 'main',
    SVC_SERVICE_PORT: String(servicePort),
    SVC_API_URL: api.apiUrl,
    SVC_AGENT_NAME: 'builder',
    SVC_INITIAL_PROMPT: options.initialPrompt ?? '',
    SVC_PROJECT_AUTO_CLONE: '1',
    SVC_PROJECT_SECRET_NAMES: 'PROJECT_SECRET',
    SVC_PROJECT_SECRETS_REVISION: '1',
    PROJECT_SECRET: 'secret-value',
    SVC_SANDBOX_TOKEN: sandboxToken,
    SVC_TOKEN: sandboxToken,
    SVC_BOOTSTRAP_RUNTIME_SESSION: '1',
    SVC_WORKSPACE: workspace,
    SVC_RUNTIME_HOME: runtimeHome,
    SVC_RUNTIME_PORT: String(runtimePort),
    SVC_RUNTIME_COMMAND: opencodeBinary,
    SVC_LEASE_RENEW_MS: '200',
    // An unroutable registry: a download attempt would fail instead of quietly succeeding.
    npm_config_registry: 'http://127.0.0.1:9/',
    ...options.env,
  };
  let output = '';
  const url = `http://127.0.0.1:${servicePort}`;

  const fixture: DaemonFixture = {
    root,
    projectId,
    sessionId,
    sandboxToken,
    workspace,
    runtimeHome,
    servicePort,
    runtimePort,
    url,
    api,
    model,
    env,
    entrypoint: undefined,
    log: () => output,
    async start() {
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'svc-entrypoint.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      fixture.entrypoint = child;
      await fixture.waitHealth(() => true);
    },
    async stop() {
      const child = fixture.entrypoint;
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
    context({ at, token } = {}) {
      return signUserContext({ user_id: 'user-1', project_id: projectId, session_id: sessionId }, token ?? sandboxToken, at);
    },
    async request(method, route, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      const context = requestOptions.context === undefined ? fixture.context() : requestOptions.context;
      if (context !== null) headers['x-svc-user-context'] = context;
      if (requestOptions.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(url + route, { method, headers, body: requestOptions.body === undefined ? undefined : JSON.stringify(requestOptions.body), signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: response.status, headers: response.headers, body, text };
    },
    async health() {
      return (await fixture.request('GET', '/svc/health', { context: null })).body;
    },
    async waitHealth(predicate) {
      for (;;) {
        try {
          const response = await fetch(`${url}/svc/health`, { signal: AbortSignal.timeout(2000) });
          if (response.ok) {
            const health = await response.json();
            if (predicate(health)) return health;
          }
        } catch {}
        if (fixture.entrypoint && fixture.entrypoint.exitCode !== null) throw new Error(`the entrypoint exited: ${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await fixture.stop();
      await api.close();
      await model.close();
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** Resident memory of a process in MB, from /proc. */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}
