/**
 * A real Docker engine restarted under svc (issue 21), where sessions-faults-docker.test.ts only
 * simulates one: svc runs the docker provider on an engine of this file's own (support/private-engine.ts),
 * which is killed (a crash: its containers outlive it until it comes back) or shut down cleanly, then
 * started again. Sessions end in a true state that says what happened, svc answers meanwhile (a new
 * session fails saying the engine does not answer), nothing of a sandbox runs once the engine is back
 * but the files resume needs, and resuming brings the sandbox back with its workspace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { DockerEngine } from '../src/sessions/providers/docker-engine.js';
import { sandboxProcesses } from '../src/sessions/providers/host-processes.js';
import { sandboxImageTag } from '../src/sessions/providers/sandbox-image.js';
import { buildSandboxImageOnce, dockerTraces } from './support/docker-traces.js';
import { poll } from './support/poll.js';
import { PrivateEngine } from './support/private-engine.js';
import { pushStarterRepository } from './support/sandbox-conformance.js';
import { sandboxDriver, type DrivenSession, type SandboxDriver } from './support/sandbox-driver.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

const mainEngine = new DockerEngine();
const ENGINE_DOWN = /^The Docker engine at tcp:\/\/10\.219\.\S+ does not answer \(it stopped, crashed or is restarting\), so svc cannot manage the sandbox's container any more\. Resume the session to start it again with its files\.$/;

let engine: PrivateEngine | undefined;
let svc: TestServer | undefined;
let projectId: string;
let driver: SandboxDriver;
/** A second svc on the same engine that checks its sandboxes only every 10 minutes: a request reaches its sandbox before svc has noticed the engine went. */
let unwatching: { svc: TestServer; projectId: string; driver: SandboxDriver } | undefined;

async function startSvc(watchIntervalMs: number): Promise<{ svc: TestServer; projectId: string; driver: SandboxDriver }> {
  const started = await startTestServer({ host: engine!.hostAddress, env: { SVC_SANDBOX_PROVIDER: 'docker', SVC_SANDBOX_WATCH_INTERVAL_MS: String(watchIntervalMs), SVC_SANDBOX_BOOT_TIMEOUT_MS: '20000' } });
  const created = await started.request('POST', '/v1/projects', { body: { name: `Engine restart ${Date.now()}` } });
  await pushStarterRepository(created.body.project.clone_url, started.adminToken);
  return { svc: started, projectId: created.body.project.id as string, driver: sandboxDriver(started, created.body.project.id as string, 'docker') };
}

const dockerHost = process.env.DOCKER_HOST;

beforeAll(async () => {
  await buildSandboxImageOnce(mainEngine);
  engine = await PrivateEngine.create();
  await engine.loadImage(sandboxImageTag(), mainEngine);
  // The provider reads DOCKER_HOST when svc starts, in this process.
  process.env.DOCKER_HOST = engine.address;
  [{ svc, projectId, driver }, unwatching] = await Promise.all([startSvc(100), startSvc(600_000)]);
}, 300_000);

afterAll(async () => {
  // svc first, while the engine answers, so it removes its sandboxes; then the engine with whatever is left.
  if (engine && !(await engine.answers())) await engine.start().catch(() => undefined);
  await Promise.all([svc?.close(), unwatching?.svc.close()]);
  await engine?.remove();
  removeTempDirs();
  // Test files share their process: the next one reaches the machine's engine, not this private one.
  if (dockerHost === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = dockerHost;
}, 120_000);

const base = () => `/v1/projects/${projectId}/sessions`;
// Three sandboxes boot at once on the private engine while other test files run: on a busy 2-core machine the
// agent runtime inside one took over 60 s to answer (CI, 2026-11-29), where it takes a few seconds alone.
const running = (session: DrivenSession) => driver.until('it runs', session.id, (s) => s.status === 'running' && s.runtime_session_id !== null, 120_000);
const failed = (session: DrivenSession) => driver.until('it fails', session.id, (s) => s.status === 'failed', 30_000);

async function runningWithFile(): Promise<DrivenSession> {
  const session = await running(await driver.create());
  expect(await driver.run(session, 'echo kept > restart.txt && cat restart.txt')).toBe('kept');
  return session;
}

/** With the engine back: nothing of the session runs (no container, shim or process), only the files resume needs are kept. */
async function expectOnlyFilesKept(sessionId: string): Promise<void> {
  const live = engine!;
  await poll(`the processes of ${sessionId} end`, () => sandboxProcesses(sessionId), (pids) => pids.length === 0, { withinMs: 15_000 });
  expect(live.leftoverHelpers()).toEqual([]);
  expect(live.containerProcesses()).toEqual([]);
  const traces = await dockerTraces(sessionId, live.engine);
  expect(traces.filter((trace) => !trace.startsWith('files:'))).toEqual([]);
  expect(traces.filter((trace) => trace.includes('volume')).length).toBe(2);
  const networks = ((await live.engine.expect([200], 'GET', '/networks')).body as Array<{ Name: string }>).map((network) => network.Name).sort();
  expect(networks).toEqual(['host', 'none', 'svc-sandboxes']);
}

/** Resumes a failed session: it runs again with the file written before the engine went. */
async function resumesWithFile(session: DrivenSession): Promise<void> {
  const resumed = await svc!.request('POST', `${base()}/${session.id}/resume`);
  expect(resumed.status, resumed.text).toBe(200);
  expect(await driver.run(await running(session), 'cat restart.txt')).toBe('kept');
}

async function deleteWithoutTrace(sessionId: string): Promise<void> {
  expect((await svc!.request('DELETE', `${base()}/${sessionId}`)).status).toBe(204);
  // At once, or, where the engine refused the removal for a moment (on a busy machine), by the recovery task
  // within a few of its rounds.
  await poll("the deleted session's sandbox is removed", () => dockerTraces(sessionId, engine!.engine), (traces) => traces.length === 0, { withinMs: 15_000 });
  expect(sandboxProcesses(sessionId)).toEqual([]);
}

describe(`a real Docker engine restarted under svc (${testDialect})`, () => {
  it('fails the sessions of an engine that was killed, saying so, answers meanwhile (create, resume, stop and delete too), leaves nothing once the engine is back but the files a resume needs, and resumes with its files', { timeout: 240_000 }, async () => {
    const other = unwatching!;
    const [session, doomed, unwatched] = await Promise.all([
      runningWithFile(),
      driver.create().then(running),
      other.driver.create().then((created) => other.driver.until('it runs', created.id, (s) => s.status === 'running', 60_000)),
    ]);
    await engine!.stop('SIGKILL');
    // The containers outlive a crashed engine (until it starts again), which is why svc's error does not say the sandbox ended.
    expect(engine!.containerProcesses().length).toBeGreaterThan(0);
    let createdWhileDown: DrivenSession | undefined;
    try {
      const ended = await failed(session);
      expect(ended).toMatchObject({ status: 'failed', sandbox: { provider: 'docker', state: 'error' } });
      expect(ended.error).toMatch(ENGINE_DOWN);
      // svc answers, and a session asked for now fails at once saying what to fix.
      expect((await svc!.request('GET', `/v1/projects/${projectId}`)).status).toBe(200);
      createdWhileDown = await driver.create();
      const refused = await failed(createdWhileDown);
      const refusal = /^The sandbox could not be started: the Docker engine at tcp:\/\/10\.219\.\S+ does not answer \(connect ECONNREFUSED [^)]+\): start it \(dockerd, or systemctl start docker\) or point DOCKER_HOST at one, then resume the session\.$/;
      expect(refused.error).toMatch(refusal);
      // So does resuming one while the engine is down.
      expect((await svc!.request('POST', `${base()}/${session.id}/resume`)).status).toBe(200);
      expect((await failed(session)).error).toMatch(refusal);
      // Stopping a session svc has not yet seen fail does not fail the request: the session turns failed, saying why.
      const stopped = await other.svc.request('POST', `/v1/projects/${other.projectId}/sessions/${unwatched.id}/stop`);
      expect(stopped.status, stopped.text).toBe(200);
      expect(stopped.body.session).toMatchObject({ status: 'failed', sandbox: { state: 'error' } });
      expect(stopped.body.session.error).toMatch(
        /^The sandbox could not be stopped: the Docker engine at tcp:\/\/10\.219\.\S+ does not answer \(connect ECONNREFUSED [^)]+\): start it \(dockerd, or systemctl start docker\) or point DOCKER_HOST at one\. Resume the session to start it again with its files, or delete it\.$/,
      );
      // A session deleted now is deleted; its sandbox goes once the engine answers again.
      expect((await svc!.request('DELETE', `${base()}/${doomed.id}`)).status).toBe(204);
      expect((await driver.sessionOf(doomed.id)).sandbox.state).toBe('archived');
    } finally {
      await engine!.start();
    }
    await poll('the deleted session\'s sandbox is removed', () => dockerTraces(doomed.id, engine!.engine), (traces) => traces.length === 0, { withinMs: 15_000 });
    await expectOnlyFilesKept(session.id);
    await resumesWithFile(session);
    // The one that never booted starts now.
    expect((await svc!.request('POST', `${base()}/${createdWhileDown!.id}/resume`)).status).toBe(200);
    await running(createdWhileDown!);
    await deleteWithoutTrace(session.id);
    await deleteWithoutTrace(createdWhileDown!.id);
  });

  it('fails the session of an engine shut down cleanly, saying so, and resumes it with its files once the engine is back', { timeout: 240_000 }, async () => {
    const session = await runningWithFile();
    try {
      await engine!.stop('SIGTERM');
      const ended = await failed(session);
      expect(ended).toMatchObject({ status: 'failed', sandbox: { provider: 'docker', state: 'error' } });
      // Seen while the engine stops its containers, or once it no longer answers.
      expect(ended.error).toMatch(new RegExp(`${ENGINE_DOWN.source}|^The sandbox's container exited with code \\d+ at \\S+ \\(killed, crashed, or the engine restarted\\)\\.`));
    } finally {
      await engine!.start();
    }
    await expectOnlyFilesKept(session.id);
    await resumesWithFile(session);
    await deleteWithoutTrace(session.id);
  });
});
