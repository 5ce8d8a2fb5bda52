/**
 * Faults and hostile agents, per sandbox provider (issue 21): a sandbox killed from the host, a fork bomb,
 * a program that takes the daemon's port 8000 before it. Each ends in a true session state that svc's
 * API reports, leaves nothing of the sandbox on the host once it is stopped, and resumes with its files;
 * svc and a neighbouring sandbox carry on meanwhile. The hostile checks run where the provider isolates.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../../src/git/testing/fixtures.js';
import { DockerEngine } from '../../src/sessions/providers/docker-engine.js';
import { sandboxProcesses } from '../../src/sessions/providers/host-processes.js';
import { poll } from './poll.js';
import { pushStarterRepository } from './sandbox-conformance.js';
import { sandboxDriver, type DrivenSession, type SandboxDriver } from './sandbox-driver.js';
import { startTestServer, testDialect, type TestServer } from './test-server.js';

export interface FaultOptions {
  provider: 'process' | 'bubblewrap' | 'docker';
  setup?: () => Promise<void>;
  /** What the host shows of a session's sandbox (namespaces, links, rules, running containers; `files:` ones are kept files). */
  hostTraces: (sessionId: string) => Promise<string[]>;
  /** The session's `error` once its sandbox was killed from the host. */
  killedError: RegExp;
  /** The docker provider's engine, through a door the test closes and opens (support/engine-door.ts). */
  engine?: {
    /** The engine restarts: it stops answering, and the given sessions' containers stop. */
    goAway(sessionIds: string[]): Promise<void>;
    /** The engine stops answering; its containers run on (a hung engine, a network cut to a remote one). */
    stopAnswering(): Promise<void>;
    comeBack(): Promise<void>;
  };
}

const MAX_PIDS = 400;
const BOOT_TIMEOUT_MS = 20_000;

export function sandboxFaults(options: FaultOptions): void {
  const isolates = options.provider !== 'process';
  let svc: TestServer;
  let projectId: string;
  let driver: SandboxDriver;
  let neighbour: DrivenSession;

  const running = (session: DrivenSession) => driver.until('it runs', session.id, (s) => s.status === 'running' && s.runtime_session_id !== null);
  const liveTraces = async (sessionId: string) => (await options.hostTraces(sessionId)).filter((trace) => !trace.startsWith('files:'));
  async function sandboxRef(sessionId: string): Promise<string> {
    const row = await svc.server.services.db.selectFrom('sessions').select(['sandbox_ref']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    return row.sandbox_ref ?? '';
  }
  async function daemonUrl(sessionId: string): Promise<string> {
    const row = await svc.server.services.db.selectFrom('sessions').select(['daemon_url']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    return row.daemon_url ?? '';
  }
  /** Nothing of the session's sandbox runs on the host: no process with its identity, no namespace, link, rule or running container. */
  async function expectNothingRunning(sessionId: string): Promise<void> {
    await poll(`the processes of ${sessionId} end`, () => sandboxProcesses(sessionId), (pids) => pids.length === 0, { withinMs: 10_000 });
    expect(await liveTraces(sessionId)).toEqual([]);
  }
  /** svc answers and the neighbouring sandbox still runs commands. */
  async function expectOthersUnharmed(): Promise<void> {
    expect((await svc.request('GET', `/v1/projects/${projectId}`)).status).toBe(200);
    expect(await driver.run(neighbour, 'echo alive')).toBe('alive');
  }

  /** A failed session left nothing running and harmed no one; it resumes (`command` prints `output` in it), and deleting it leaves nothing. */
  async function resumeCleanly(failed: DrivenSession, command: string, output: string): Promise<void> {
    await expectNothingRunning(failed.id);
    await expectOthersUnharmed();
    expect((await svc.request('POST', `/v1/projects/${projectId}/sessions/${failed.id}/resume`)).status).toBe(200);
    const resumed = await running(failed);
    expect(await driver.run(resumed, command)).toBe(output);
    expect((await svc.request('DELETE', `/v1/projects/${projectId}/sessions/${failed.id}`)).status).toBe(204);
    await expectNothingRunning(failed.id);
  }

  beforeAll(async () => {
    await options.setup?.();
    svc = await startTestServer({
      env: { SVC_SANDBOX_PROVIDER: options.provider, SVC_MAX_SESSIONS: '6', SVC_SANDBOX_WATCH_INTERVAL_MS: '100', SVC_SANDBOX_BOOT_TIMEOUT_MS: String(BOOT_TIMEOUT_MS), SVC_SANDBOX_PIDS: String(MAX_PIDS) },
    });
    const created = await svc.request('POST', '/v1/projects', { body: { name: `Faults ${options.provider} ${Date.now()}` } });
    projectId = created.body.project.id as string;
    driver = sandboxDriver(svc, projectId, options.provider);
    await pushStarterRepository(created.body.project.clone_url, svc.adminToken);
    neighbour = await running(await driver.create());
  }, 900_000);

  afterAll(async () => {
    await svc?.close();
    removeTempDirs();
  });

  describe(`faults of the ${options.provider} provider (${testDialect})`, () => {
    it('turns a session failed with what happened when its sandbox is killed from the host, leaves nothing running, and resumes it with its files', { timeout: 180_000 }, async () => {
      const session = await running(await driver.create());
      expect(await driver.run(session, 'echo kept > fault.txt && cat fault.txt')).toBe('kept');
      const ref = await sandboxRef(session.id);
      if (options.provider === 'docker') await new DockerEngine().expect([204], 'POST', `/containers/${ref}/kill`);
      else process.kill(-(JSON.parse(fs.readFileSync(path.join(ref, 'sandbox.json'), 'utf8')) as { pid: number }).pid, 'SIGKILL');

      const failed = await driver.until('the session fails', session.id, (s) => s.status === 'failed', 30_000);
      expect(failed).toMatchObject({ status: 'failed', sandbox: { provider: options.provider, state: 'error' } });
      expect(failed.error).toMatch(options.killedError);
      expect(failed.error).toMatch(/Resume the session to start it again with its files\.$/);
      await resumeCleanly(session, 'cat fault.txt', 'kept');
    });

    const { engine } = options;
    if (engine) {
      it('fails the sessions of an engine that went away, saying so, keeps answering, and resumes them once it is back', { timeout: 240_000 }, async () => {
        const sessions = [await running(await driver.create()), await running(await driver.create())];
        for (const session of sessions) expect(await driver.run(session, 'echo kept > engine.txt && cat engine.txt')).toBe('kept');
        // An engine that restarts stops every container, the neighbour's too.
        await engine.goAway([...sessions.map((session) => session.id), neighbour.id]);
        try {
          for (const session of sessions) {
            const failed = await driver.until('the session fails', session.id, (s) => s.status === 'failed', 30_000);
            expect(failed).toMatchObject({ status: 'failed', sandbox: { state: 'error' } });
            expect(failed.error).toMatch(/^The Docker engine at unix:\/\/\S+ does not answer \(it stopped, crashed or is restarting\), so svc cannot manage the sandbox's container any more\. Resume the session/);
          }
          // The neighbour's container went with the engine too: it is failed like them (the watcher takes the
          // sessions one after another), and only then resumed, not while svc still thinks it runs.
          expect(await driver.until('the neighbour fails', neighbour.id, (s) => s.status === 'failed', 30_000)).toMatchObject({ sandbox: { state: 'error' } });
          expect((await svc.request('GET', `/v1/projects/${projectId}`)).status).toBe(200);
        } finally {
          await engine.comeBack();
        }
        expect((await svc.request('POST', `/v1/projects/${projectId}/sessions/${neighbour.id}/resume`)).status).toBe(200);
        neighbour = await running(neighbour);
        for (const session of sessions) await resumeCleanly(session, 'cat engine.txt', 'kept');
      });
    }

    if (engine) {
      it('stops the container of a session failed while its engine did not answer, once the engine answers again without having restarted, and resumes it', { timeout: 240_000 }, async () => {
        const session = await running(await driver.create());
        expect(await driver.run(session, 'echo kept > hung.txt && cat hung.txt')).toBe('kept');
        await engine.stopAnswering();
        try {
          for (const id of [session.id, neighbour.id]) {
            const failed = await driver.until('the session fails', id, (s) => s.status === 'failed', 30_000);
            expect(failed.error).toMatch(/^The Docker engine at unix:\/\/\S+ does not answer/);
          }
          // Its container still runs: the engine that would stop it does not answer.
          expect(await liveTraces(session.id)).not.toEqual([]);
        } finally {
          await engine.comeBack();
        }
        // A failed session holds nothing running, here as after any failure.
        await poll('the failed sessions\' containers stop', async () => [...(await liveTraces(session.id)), ...(await liveTraces(neighbour.id))], (traces) => traces.length === 0, { withinMs: 30_000 });
        expect((await svc.request('POST', `/v1/projects/${projectId}/sessions/${neighbour.id}/resume`)).status).toBe(200);
        neighbour = await running(neighbour);
        await resumeCleanly(session, 'cat hung.txt', 'kept');
      });
    }

    if (!isolates) return;

    it(`holds a fork bomb to its sandbox's ${MAX_PIDS} processes while svc and the neighbour carry on, and stops it without a trace`, { timeout: 180_000 }, async () => {
      const hostile = await running(await driver.create());
      await driver.run(hostile, `(setsid bash -c 'bomb() { bomb | bomb & }; bomb' >/dev/null 2>&1 &); echo started`).catch(() => '');
      await poll('the fork bomb spreads', () => sandboxProcesses(hostile.id).length, (count) => count > MAX_PIDS / 2);
      expect(sandboxProcesses(hostile.id).length).toBeLessThanOrEqual(MAX_PIDS);
      await expectOthersUnharmed();
      expect(sandboxProcesses(hostile.id).length).toBeLessThanOrEqual(MAX_PIDS);

      const stopped = await svc.request('POST', `/v1/projects/${projectId}/sessions/${hostile.id}/stop`);
      expect(stopped.status).toBe(200);
      expect(stopped.body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'stopped' } });
      await expectNothingRunning(hostile.id);
      await expectOthersUnharmed();
      expect((await svc.request('DELETE', `/v1/projects/${projectId}/sessions/${hostile.id}`)).status).toBe(204);
    });

    it('fails a session whose port 8000 a program took from its daemon, saying so, and resumes it', { timeout: 180_000 }, async () => {
      const hostile = await running(await driver.create());
      const health = (await (await fetch(`${await daemonUrl(hostile.id)}/svc/health`)).json()) as { daemon: { pid: number } };
      // A program finds the port taken, kills the daemon itself and takes the port within milliseconds, so the
      // entrypoint's restarts (100 ms later) find 8000 taken. Killed from outside before this program was up,
      // the restarted daemon could win the port and the session rightly stay running.
      const grab = `const s=require("net").createServer();s.once("error",()=>{if(!killed){killed=true;process.kill(${health.daemon.pid},"SIGKILL")}setTimeout(grab,2)});s.listen(8000)`;
      await driver.run(hostile, `(setsid node -e 'let killed=false;const grab=()=>{${grab}};grab()' >/dev/null 2>&1 &); echo started`).catch(() => '');

      const failed = await driver.until('the session fails', hostile.id, (s) => s.status === 'failed', BOOT_TIMEOUT_MS + 30_000);
      expect(failed).toMatchObject({ status: 'failed', sandbox: { state: 'error' } });
      expect(failed.error).toMatch(/^The sandbox's daemon stopped answering for 20 s \(it keeps crashing, or another program holds its port 8000\); the sandbox was stopped\./);
      await resumeCleanly(hostile, 'echo back', 'back');
    });
  });
}
