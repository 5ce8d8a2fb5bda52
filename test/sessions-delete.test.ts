/**
 * No sandbox process outlives a stopped or deleted session (issue 19), whatever order things happen in:
 * a delete or stop while the sandbox is starting, and a wake or a recovery that read the session before it
 * was deleted. The sandboxes run the real daemon with a runtime that never becomes ready.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { wake } from '../src/sessions/resume-session.js';
import { hibernate } from '../src/sessions/stop-session.js';
import { projectWithCommit, until } from './support/session-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand } from './support/trigger-fixtures.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer({ env: { SVC_RUNTIME_COMMAND: idleRuntimeCommand(), SVC_MAX_SESSIONS: '20' } });
});
afterAll(async () => {
  for (const session of await svc.server.services.db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute()) {
    await svc.server.services.sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
  }
  await svc.close();
  removeTempDirs();
});

/** Every process on this machine whose environment names the session: its sandbox's entrypoint, daemon and runtime. */
function processesOf(sessionId: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').includes(`SVC_SESSION_ID=${sessionId}`)) found.push(Number(name));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

async function newSession() {
  const project = await projectWithCommit(svc, `Delete ${Date.now()}`);
  const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} });
  expect(created.status).toBe(201);
  return { project, session: created.body.session as { id: string; status: string }, base: `/v1/projects/${project.id}/sessions` };
}

const services = () => svc.server.services;
const row = (id: string) => services().db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const projectRow = (id: string) => services().db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const bootOf = (id: string) => services().sessions.supervisor.booting(id) ?? Promise.resolve();

describe(`no sandbox outlives its session on ${testDialect}`, () => {
  it('a session deleted while its sandbox starts leaves no process behind', async () => {
    const { session, base } = await newSession();
    expect(session.status).toBe('provisioning');
    expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
    await bootOf(session.id);
    expect(processesOf(session.id)).toEqual([]);
    expect((await svc.request('GET', `${base}/${session.id}`)).body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'archived' } });
  }, 60_000);

  it('a stop that read the session before its sandbox was recorded still ends the sandbox', async () => {
    const { session, base } = await newSession();
    // The row as a stop sees it when it comes before the boot has recorded the sandbox.
    const before = { ...(await row(session.id)), sandbox_ref: null };
    expect(await hibernate(services(), before)).toBe(true);
    expect(processesOf(session.id)).toEqual([]);
    expect((await svc.request('GET', `${base}/${session.id}`)).body.session.status).toBe('stopped');
    expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
  }, 60_000);

  it('a wake that read the session before it was deleted neither revives it nor starts a sandbox', async () => {
    const { project, session, base } = await newSession();
    await until('the session runs', async () => (await svc.request('GET', `${base}/${session.id}`)).body.session, (s) => s.status === 'running');
    expect((await svc.request('POST', `${base}/${session.id}/stop`)).status).toBe(200);
    // A message or resume read the stopped session; the delete lands before it wakes it.
    const stale = await row(session.id);
    expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
    await wake(services(), await projectRow(project.id), stale);
    await bootOf(session.id);
    expect(processesOf(session.id)).toEqual([]);
    expect((await svc.request('GET', `${base}/${session.id}`)).body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'archived' } });
  }, 60_000);

  it('a boot asked for on a row read before the delete (the recovery task) starts nothing', async () => {
    const { project, session, base } = await newSession();
    await until('the session runs', async () => (await svc.request('GET', `${base}/${session.id}`)).body.session, (s) => s.status === 'running');
    // The recovery task listed the session as running, then found its sandbox gone because it was deleted.
    const stale = await row(session.id);
    expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
    services().sessions.supervisor.boot(await projectRow(project.id), stale);
    await bootOf(session.id);
    expect(processesOf(session.id)).toEqual([]);
    expect((await svc.request('GET', `${base}/${session.id}`)).body.session).toMatchObject({ status: 'stopped', sandbox: { state: 'archived' } });
  }, 60_000);
});
