/**
 * svc restarted while a failed session's container still runs (issue 21): the Docker engine stopped
 * answering without restarting (hung, or cut off by the network), so svc failed the session but could not
 * stop its container; then svc was killed. Once the engine answers again, the next `svc serve` stops that
 * container (the session is marked in the database, not only in the memory of the svc that failed it), the
 * session stays failed with what happened, and resuming it boots it again. svc reaches the engine through a
 * door (support/engine-door.ts) that shuts and opens as the engine's answers would.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { DockerEngine } from '../src/sessions/providers/docker-engine.js';
import { sandboxProcesses } from '../src/sessions/providers/host-processes.js';
import { buildSandboxImageOnce, dockerTraces } from './support/docker-traces.js';
import { EngineDoor } from './support/engine-door.js';
import { poll } from './support/poll.js';
import { pushStarterRepository } from './support/sandbox-conformance.js';
import { SERVE_TOKEN, serveApi as api, serveSvc, type ServedSvc } from './support/svc-serve.js';
import { createTestDatabase, testDialect, type TestDatabase } from './support/test-server.js';

const engine = new DockerEngine();
if (!engine.socketPath) throw new Error(`this test needs a Docker engine on a unix socket (DOCKER_HOST is ${engine.address})`);
const door = new EngineDoor(engine.socketPath);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hung-engine-'));
const served: ServedSvc[] = [];
let database: TestDatabase | undefined;

afterAll(async () => {
  await door.openDoor().catch(() => undefined);
  const last = served.at(-1);
  // Whatever a failed run left running goes with its sessions.
  if (last && last.child.exitCode === null) {
    const projects = (await api(last.url, 'GET', '/v1/projects')).body?.projects ?? [];
    for (const project of projects) {
      for (const session of (await api(last.url, 'GET', `/v1/projects/${project.id}/sessions`)).body?.sessions ?? []) {
        await api(last.url, 'DELETE', `/v1/projects/${project.id}/sessions/${session.id}`);
      }
    }
  }
  for (const svc of served) await svc.kill();
  await door.remove();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  removeTempDirs();
}, 120_000);

async function serve(): Promise<ServedSvc> {
  database ??= await createTestDatabase();
  const svc = await serveSvc(dataDir, { DATABASE_URL: database.url ?? '', DOCKER_HOST: door.address, SVC_SANDBOX_PROVIDER: 'docker', SVC_SANDBOX_WATCH_INTERVAL_MS: '200' });
  served.push(svc);
  return svc;
}

const liveTraces = async (sessionId: string) => (await dockerTraces(sessionId, engine)).filter((trace) => !trace.startsWith('files:'));

async function sessionUntil(url: string, route: string, what: string, done: (session: any) => boolean): Promise<any> {
  return poll(what, async () => (await api(url, 'GET', route)).body.session, done, { withinMs: 90_000, everyMs: 100 });
}

it(`stops, after svc restarted, the container of a session failed while its engine did not answer, and resumes the session (${testDialect})`, { timeout: 300_000 }, async () => {
  await buildSandboxImageOnce(engine);
  await door.openDoor();
  const first = await serve();
  const { body } = await api(first.url, 'POST', '/v1/projects', { name: 'Hung engine' });
  await pushStarterRepository(body.project.clone_url, SERVE_TOKEN);
  const route = `/v1/projects/${body.project.id}/sessions`;
  const sessionId = (await api(first.url, 'POST', route, {})).body.session.id as string;
  await sessionUntil(first.url, `${route}/${sessionId}`, 'the session runs', (s) => s.status === 'running' && s.runtime_session_id !== null);

  await door.closeDoor();
  const failed = await sessionUntil(first.url, `${route}/${sessionId}`, 'the session fails', (s) => s.status === 'failed');
  expect(failed.error).toMatch(/^The Docker engine at unix:\/\/\S+ does not answer \(it stopped, crashed or is restarting\), so svc cannot manage the sandbox's container any more\. Resume the session to start it again with its files\.$/);
  // Its container still runs: the engine that would stop it does not answer.
  expect(await liveTraces(sessionId)).not.toEqual([]);

  // svc dies before the engine answers again; the engine comes back, then svc.
  await first.kill();
  await door.openDoor();
  const second = await serve();
  await poll('the failed session\'s container stops', () => liveTraces(sessionId), (traces) => traces.length === 0, { withinMs: 30_000 });
  await poll(`the processes of ${sessionId} end`, () => sandboxProcesses(sessionId), (pids) => pids.length === 0, { withinMs: 15_000 });
  expect((await api(second.url, 'GET', `${route}/${sessionId}`)).body.session).toMatchObject({ status: 'failed', error: failed.error, sandbox: { provider: 'docker', state: 'error' } });

  expect((await api(second.url, 'POST', `${route}/${sessionId}/resume`)).status).toBe(200);
  await sessionUntil(second.url, `${route}/${sessionId}`, 'the session runs again', (s) => s.status === 'running' && s.runtime_session_id !== null);
  expect((await api(second.url, 'DELETE', `${route}/${sessionId}`)).status).toBe(204);
  expect(await dockerTraces(sessionId, engine)).toEqual([]);
});
