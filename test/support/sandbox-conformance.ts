/**
 * One conformance suite for every sandbox provider (contract §6): each provider's test file calls
 * `sandboxConformance` with what it isolates. Commands run inside a sandbox through svc's own runtime
 * proxy and the agent runtime's shell endpoint, exactly as a user's tools would reach it; nothing here
 * reaches into a provider's internals except the host-cleanliness checks a provider passes in.
 *
 * Two sessions per provider are shared by the checks (booting is what costs): A is examined, B is the
 * neighbour A must not reach.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitAsync, removeTempDirs, tempDir } from '../../src/git/testing/fixtures.js';
import { scriptedRuntimeConfig } from './runtime-fixture.js';
import { sandboxDriver, type DrivenSession, type SandboxDriver } from './sandbox-driver.js';
import { startTestServer, testDialect, type TestServer } from './test-server.js';

export interface ConformanceOptions {
  provider: 'process' | 'bubblewrap' | 'docker';
  env?: Record<string, string>;
  /** Run before svc starts (the docker provider's image build: instant when the image is there). */
  setup?: () => Promise<void>;
  /** What the host shows of a session's sandbox (namespaces, links, rules, containers); empty when none is left. */
  hostTraces?: (svc: TestServer, sessionId: string) => Promise<string[]>;
}

interface Project {
  id: string;
  clone_url: string;
}

type Session = DrivenSession;

/** A connection attempt from inside a sandbox: `open`, or `closed <reason>`. */
const CONNECT = (host: string, port: number) =>
  `node -e 'const s=require("net").connect(${port},"${host}");s.setTimeout(1500);s.on("connect",()=>{console.log("open");process.exit(0)});s.on("error",e=>{console.log("closed "+e.code);process.exit(0)});s.on("timeout",()=>{console.log("closed timeout");process.exit(0)})'`;

/** The first commit of a project whose sessions are driven through the runtime's shell endpoint. */
export async function pushStarterRepository(cloneUrl: string, token: string): Promise<void> {
  const work = tempDir();
  const url = new URL(cloneUrl);
  url.username = 'x';
  url.password = token;
  git(['init', '-q', '-b', 'main', work]);
  fs.mkdirSync(path.join(work, '.svc', 'runtime'), { recursive: true });
  // The model is never asked: every command goes through the runtime's shell endpoint.
  fs.writeFileSync(path.join(work, '.svc', 'runtime', 'opencode.json'), JSON.stringify(scriptedRuntimeConfig('http://127.0.0.1:9/v1'), null, 2));
  fs.writeFileSync(path.join(work, 'README.md'), '# Conformance\n');
  git(['add', '-A'], { cwd: work });
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'Start'], { cwd: work });
  await gitAsync(['push', '-q', url.toString(), 'HEAD:main'], { cwd: work });
}

export function sandboxConformance(options: ConformanceOptions): void {
  const isolates = options.provider !== 'process';
  let svc: TestServer;
  let project: Project;
  let a: Session;
  let b: Session;

  let driver: SandboxDriver;
  const sessionOf = (id: string) => driver.sessionOf(id);
  const until = (what: string, id: string, done: (session: Session) => boolean, timeoutMs?: number) => driver.until(what, id, done, timeoutMs);
  const run = (session: Session, command: string) => driver.run(session, command);

  function hostedTip(branch: string): string | null {
    try {
      return git(['--git-dir', path.join(svc.dataDir, 'repos', `${project.id}.git`), 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
    } catch {
      return null;
    }
  }

  beforeAll(async () => {
    await options.setup?.();
    svc = await startTestServer({ env: { SVC_SANDBOX_PROVIDER: options.provider, SVC_MAX_SESSIONS: '3', ...options.env } });
    const created = await svc.request('POST', '/v1/projects', { body: { name: `Conformance ${options.provider} ${Date.now()}` } });
    project = created.body.project as Project;
    driver = sandboxDriver(svc, project.id, options.provider);
    await pushStarterRepository(project.clone_url, svc.adminToken);
    const [first, second] = [await driver.create(), await driver.create()];
    a = await until('A runs', first.id, (s) => s.status === 'running' && s.runtime_session_id !== null);
    b = await until('B runs', second.id, (s) => s.status === 'running' && s.runtime_session_id !== null);
    // A first build of the docker image (debootstrap) takes minutes; later runs find it.
  }, 900_000);

  afterAll(async () => {
    for (const session of [a, b]) if (session) await svc?.request('DELETE', `/v1/projects/${project.id}/sessions/${session.id}`).catch(() => undefined);
    await svc?.close();
    removeTempDirs();
  });

  /**
   * The checks share two running sessions, A and B, and each leaves them running, in any order: A's daemon
   * comes back after it is killed, and A runs again after its stop and resume. Deleting takes a session of its own.
   */
  describe(`the ${options.provider} provider (${testDialect})`, () => {
    it('runs a session with its sandbox active and spec 3\'s environment', async () => {
      expect(a.sandbox).toEqual({ provider: options.provider, state: 'active' });
      const env = Object.fromEntries((await run(a, 'env | grep -E "^(SVC_|HOME=)" | sort')).split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
      expect(env).toMatchObject({
        SVC_PROJECT_ID: project.id,
        SVC_SESSION_ID: a.id,
        SVC_BRANCH_NAME: a.id,
        SVC_DEFAULT_BRANCH: 'main',
        SVC_BASE_REF: 'main',
        SVC_AGENT_NAME: 'default',
        SVC_PROJECT_AUTO_CLONE: '1',
        SVC_BOOTSTRAP_RUNTIME_SESSION: '1',
      });
      expect(env.SVC_API_URL).toMatch(/^http:\/\/.+\/v1$/);
      expect(env.SVC_REPO_URL).toMatch(/^http:\/\/.+\.git$/);
      expect(env.SVC_SANDBOX_TOKEN).toMatch(/^svc_s_/);
      expect(env.SVC_CLI_TOKEN).toMatch(/^svc_p_/);
      if (isolates) expect(env).toMatchObject({ SVC_SERVICE_PORT: '8000', HOME: '/opt/svc/home' });
    });

    it(isolates ? 'lays the sandbox out as spec 3 says, the daemon on 8000 and the runtime on 4096, the system read-only' : 'stands per-sandbox directories in for /workspace and /opt/svc/home (no layout of its own)', async () => {
      const layout = await run(a, 'pwd; echo "$HOME"; ls -d .svc/runtime; command -v svc-agent svc-entrypoint svc');
      if (isolates) {
        expect(layout.split('\n')).toEqual(['/workspace', '/opt/svc/home', '.svc/runtime', '/usr/local/bin/svc-agent', '/usr/local/bin/svc-entrypoint', '/usr/local/bin/svc']);
        expect(await run(a, `${CONNECT('127.0.0.1', 8000)}; ${CONNECT('127.0.0.1', 4096)}`)).toBe('open\nopen');
        expect(await run(a, 'touch /usr/written 2>&1 || echo refused; touch /etc/written 2>&1 || echo refused')).toMatch(/refused\n.*refused$/s);
        expect(await run(a, 'touch /workspace/w /opt/svc/home/h && echo written')).toBe('written');
      } else {
        const dir = path.join(svc.dataDir, 'sandboxes', a.id);
        expect(layout.split('\n').slice(0, 3)).toEqual([path.join(dir, 'workspace'), path.join(dir, 'home'), '.svc/runtime']);
      }
    });

    it('clones the project on the session branch and pushes to it', async () => {
      expect(await run(a, 'git rev-parse --abbrev-ref HEAD; git log --reverse --format=%s | head -1')).toBe(`${a.id}\nStart`);
      await run(a, 'echo pushed > pushed.txt && git add pushed.txt && git -c user.name=a -c user.email=a@example.com commit -q -m "Pushed" && git push -q origin HEAD 2>&1');
      expect(git(['--git-dir', path.join(svc.dataDir, 'repos', `${project.id}.git`), 'log', '-1', '--format=%s', hostedTip(a.id) ?? ''])).toBe('Pushed');
    });

    if (isolates) {
      it('keeps the sandbox away from its neighbour, svc\'s data and the host\'s services', async () => {
        const neighbour = path.join(svc.dataDir, 'sandboxes', b.id, 'workspace', 'README.md');
        expect(await run(a, `cat ${neighbour} 2>/dev/null || echo unreadable`)).toBe('unreadable');
        expect(await run(a, `ls ${svc.dataDir} 2>/dev/null || echo unreadable`)).toBe('unreadable');
        const row = await svc.server.services.db.selectFrom('sessions').select('daemon_url').where('id', '=', b.id).executeTakeFirstOrThrow();
        const daemon = new URL(row.daemon_url ?? '');
        expect(await run(a, CONNECT(daemon.hostname, Number(daemon.port)))).toMatch(/^closed/);
        // The one host address the sandbox has (where it reaches svc) offers svc's port and nothing else.
        const api = new URL((await run(a, 'echo "$SVC_API_URL"')) || 'http://invalid');
        expect(await run(a, CONNECT(api.hostname, Number(api.port)))).toBe('open');
        expect(await run(a, `${CONNECT(api.hostname, 5432)}; ${CONNECT('127.0.0.1', 5432)}; ${CONNECT('169.254.169.254', 80)}`)).toMatch(/^closed.*\nclosed.*\nclosed.*$/);
      });
    } else {
      it('isolates nothing, as the README says: the agent reads its neighbour\'s workspace and svc\'s data', async () => {
        expect(svc.server.services.sessions.supervisor.provider.isolates).toBe(false);
        const neighbour = path.join(svc.dataDir, 'sandboxes', b.id, 'workspace', 'README.md');
        expect(await run(a, `cat ${neighbour}`)).toBe('# Conformance');
        expect(await run(a, `test -d ${svc.dataDir} && echo readable`)).toBe('readable');
      });
    }

    it('restarts the daemon when it dies (the entrypoint)', { timeout: 90_000 }, async () => {
      const row = await svc.server.services.db.selectFrom('sessions').select('daemon_url').where('id', '=', a.id).executeTakeFirstOrThrow();
      const health = async () => (await (await fetch(`${row.daemon_url}/svc/health`, { signal: AbortSignal.timeout(2000) })).json()) as { status: string; daemon: { pid: number; started_at: string } };
      const before = (await health()).daemon;
      // Killed from inside (the pid is the daemon's own in its sandbox); the proxied request dies with it.
      await run(a, `kill -9 ${before.pid}`).catch(() => '');
      const restartedAndReady = async () => health().then((h) => h.daemon.started_at !== before.started_at && h.status === 'ok');
      const deadline = Date.now() + 60_000;
      let restarted = false;
      while (!restarted && Date.now() < deadline) {
        restarted = await restartedAndReady().catch(() => false);
        if (!restarted) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(restarted, JSON.stringify(await health().catch((error: Error) => error.message))).toBe(true);
      a = await until('A runs again', a.id, (s) => s.status === 'running');
    });

    it('stops with its files kept, committed or not, and resumes with them', { timeout: 120_000 }, async () => {
      await run(a, 'echo committed > committed.txt && git add committed.txt && git -c user.name=a -c user.email=a@example.com commit -q -m "Committed"');
      await run(a, 'echo uncommitted > uncommitted.txt; echo home > "$HOME/kept-home.txt"');
      const stopped = await svc.request('POST', `/v1/projects/${project.id}/sessions/${a.id}/stop`);
      expect(stopped.status).toBe(200);
      expect(stopped.body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'stopped' } });
      if (options.hostTraces) expect((await options.hostTraces(svc, a.id)).filter((trace) => !trace.startsWith('files:'))).toEqual([]);
      const resumed = await svc.request('POST', `/v1/projects/${project.id}/sessions/${a.id}/resume`);
      expect(resumed.status).toBe(200);
      a = await until('A runs after its resume', a.id, (s) => s.status === 'running' && s.runtime_session_id !== null);
      expect(await run(a, 'cat committed.txt uncommitted.txt "$HOME/kept-home.txt"; git log -1 --format=%s')).toBe('committed\nuncommitted\nhome\nCommitted');
      // The clone made at the first boot pushes from this one: a bubblewrap sandbox reaches svc at a new address.
      expect(await run(a, 'timeout 20 git push -q origin HEAD 2>&1; echo "exit $?"; test "$(git remote get-url origin)" = "$SVC_REPO_URL" && echo follows')).toBe('exit 0\nfollows');
      expect(git(['--git-dir', path.join(svc.dataDir, 'repos', `${project.id}.git`), 'log', '-1', '--format=%s', hostedTip(a.id) ?? ''])).toBe('Committed');
    });

    it('deletes a session without a trace, its branch kept', { timeout: 120_000 }, async () => {
      const created = await driver.create();
      const c = await until('C runs', created.id, (s) => s.status === 'running' && s.runtime_session_id !== null);
      expect((await svc.request('DELETE', `/v1/projects/${project.id}/sessions/${c.id}`)).status).toBe(204);
      expect((await sessionOf(c.id)).sandbox.state).toBe('archived');
      if (options.hostTraces) expect(await options.hostTraces(svc, c.id)).toEqual([]);
      expect(hostedTip(c.id)).not.toBeNull();
    });
  });
}
