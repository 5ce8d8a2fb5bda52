/**
 * svc-agent, the in-sandbox daemon: prepares the workspace, supervises the agent runtime, keeps the
 * execution lease, and serves the daemon surface on SVC_SERVICE_PORT. `svc-agent git-credential <op>` is
 * the git credential helper it configures. Node built-ins and src/shared only.
 */
import type { AddressInfo } from 'node:net';
import { ApiClient } from './api-client.js';
import { createDaemonServer } from './daemon-server.js';
import { credentialHelperCommand, gitCredential } from './git-credential.js';
import { LeaseKeeper } from './lease-keeper.js';
import { killDescendants } from '../shared/process-tree.js';
import { RootSession } from './root-session.js';
import { RuntimeProcess } from './runtime-process.js';
import { readSettings, type DaemonSettings } from './settings.js';
import { Workspace } from './workspace.js';

type DaemonState = 'booting' | 'cloning' | 'ready' | 'error' | 'stopping';

function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} svc-agent: ${message}\n`);
}

function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return value;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function credentialHelper(operation: string | undefined): Promise<void> {
  try {
    process.exitCode = await gitCredential(operation, await readStdin(), readSettings(), (text) => process.stdout.write(text));
  } catch (error) {
    process.stderr.write(`svc-agent git-credential: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

async function daemon(settings: DaemonSettings): Promise<void> {
  const startedAt = new Date();
  let state: DaemonState = 'booting';
  let stateError: string | null = null;
  const envOverrides: Record<string, string | null> = {};
  const api = new ApiClient(settings);
  const workspace = new Workspace(settings, credentialHelperCommand());

  let root: RootSession;
  let lease: LeaseKeeper;
  const runtime: RuntimeProcess = new RuntimeProcess({
    settings,
    configDirectory: () => workspace.configDirectory(),
    envOverrides: () => envOverrides,
    log,
    onReady: () => {
      lease.clear();
      const pid = runtime.pid;
      // The root session (and the prompt or message it may start) only once the lease keeper follows events.
      void lease.follow().then(() => root.boot(() => runtime.state === 'ready' && runtime.pid === pid));
    },
  });
  root = new RootSession(settings, runtime.client, api, log, (id) => lease.promptSent(id));
  lease = new LeaseKeeper({ api, runtime: runtime.client, renewMs: settings.leaseRenewMs, stuckMs: settings.leaseStuckMs, isRuntimeReady: () => runtime.state === 'ready', log });

  let boundPort = settings.servicePort;
  const server = createDaemonServer({
    servicePort: () => boundPort,
    runtimePort: settings.runtimePort,
    sandboxToken: settings.sandboxToken,
    runtimeReady: () => runtime.state === 'ready',
    onPromptSent: (id) => lease.promptSent(id),
    async health() {
      const info = await workspace.info().catch(() => ({ branch: null, commit: null }));
      return {
        status: state === 'ready' && runtime.state === 'ready' ? 'ok' : state === 'error' ? 'error' : 'starting',
        daemon: { state, error: stateError, pid: process.pid, started_at: startedAt.toISOString(), uptime_ms: Date.now() - startedAt.getTime() },
        runtime: { state: runtime.state, error: runtime.error, pid: runtime.pid ?? null, port: settings.runtimePort, restarts: runtime.restarts, ready_at: runtime.readyAt, root_session_id: root.id, root_session_reported: root.reported, initial_prompt_sent: root.initialPromptSent },
        lease: { busy_sessions: [...lease.busy.keys()], held: lease.held, renewals: lease.renewals, last_renewal_at: lease.lastRenewalAt, error: lease.lastError },
        repo: { url: settings.repoUrl ? redactUrl(settings.repoUrl) : null, path: settings.workspace },
        session_id: settings.sessionId || null,
        branch: info.branch,
        commit: info.commit,
      };
    },
    async refresh() {
      await workspace.pull();
      await runtime.restart();
      const info = await workspace.info();
      return { refreshed: true, branch: info.branch, commit: info.commit, runtime: { state: runtime.state } };
    },
    async abort() {
      const ids = new Set<string>([...lease.busy.keys()]);
      if (root.id) ids.add(root.id);
      const aborted: string[] = [];
      if (runtime.state === 'ready') {
        for (const id of ids) if (await runtime.client.abort(id).catch(() => false)) aborted.push(id);
      }
      // The runtime's abort can leave a shell command running; whatever the runtime started is ended.
      const killed = runtime.pid ? killDescendants(runtime.pid) : 0;
      return { aborted, killed_processes: killed };
    },
    async setEnv(changes) {
      Object.assign(envOverrides, changes);
      if (state === 'ready') await runtime.restart();
      return { restarted: state === 'ready', names: Object.keys(changes).sort() };
    },
  });
  server.on('error', (error) => {
    log(`cannot listen on port ${settings.servicePort}: ${error.message}`);
    process.exit(1);
  });
  await new Promise<void>((resolve) => server.listen(settings.servicePort, '0.0.0.0', resolve));
  boundPort = (server.address() as AddressInfo).port;
  log(`listening on ${boundPort}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    state = 'stopping';
    log(`${signal}: stopping`);
    lease.stop();
    await runtime.stop();
    server.closeAllConnections();
    server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // The workspace, with retries: an API that is briefly unreachable must not leave the sandbox empty.
  for (let attempt = 0; !stopping; attempt += 1) {
    try {
      state = workspace.hasRepository() ? 'booting' : 'cloning';
      await workspace.prepare();
      state = 'ready';
      stateError = null;
      break;
    } catch (error) {
      state = 'error';
      stateError = `Preparing the workspace failed: ${(error as Error).message}`;
      log(stateError);
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** attempt, 30_000)));
    }
  }
  if (stopping) return;
  lease.start();
  runtime.endOrphan();
  runtime.start();
}

export async function main(argv: readonly string[]): Promise<void> {
  if (argv[0] === 'git-credential') return credentialHelper(argv[1]);
  if (argv.length > 0 && argv[0] !== 'serve') {
    process.stderr.write(`Usage: svc-agent [serve] | svc-agent git-credential <get|store|erase>\n`);
    process.exitCode = 2;
    return;
  }
  let settings: DaemonSettings;
  try {
    settings = readSettings();
  } catch (error) {
    // A setting the sandbox was given wrong: one line in the sandbox's log, not a stack trace.
    process.stderr.write(`svc-agent: ${(error as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  await daemon(settings);
}
