/**
 * The session API's answers to bad input and its limits (contract §6): unknown base refs, malformed ids,
 * wrong field types, tokens that may not, the per-account cap, and the idle sweep. The sandboxes here run
 * the real daemon with a runtime command that never becomes ready, which is all these need.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitAsync, removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { createTestDatabase, startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let idleRuntime: string;

beforeAll(async () => {
  // A runtime that starts and answers nothing: the daemon is healthy, the agent never works.
  idleRuntime = path.join(tempDir(), 'idle-runtime');
  fs.writeFileSync(idleRuntime, '#!/bin/sh\nexec sleep 600\n', { mode: 0o755 });
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '2', SVC_RUNTIME_COMMAND: idleRuntime, SVC_IDLE_TIMEOUT_S: '2', SVC_IDLE_SWEEP_INTERVAL_MS: '100' } });
});
afterAll(async () => {
  for (const session of await svc.server.services.db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute()) {
    await svc.server.services.sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
  }
  await svc.close();
  removeTempDirs();
});

async function projectWithCommit(name: string, server: TestServer = svc): Promise<{ id: string; slug: string }> {
  const created = await server.request('POST', '/v1/projects', { body: { name } });
  const project = created.body.project as { id: string; slug: string; clone_url: string };
  const work = tempDir();
  git(['init', '-q', '-b', 'main', work]);
  fs.writeFileSync(path.join(work, 'README.md'), 'hi\n');
  git(['add', '-A'], { cwd: work });
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'Start'], { cwd: work });
  const url = new URL(project.clone_url);
  url.username = 'x';
  url.password = server.adminToken;
  await gitAsync(['push', '-q', url.toString(), 'HEAD:main', 'HEAD:feature'], { cwd: work });
  return project;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe(`the session API on ${testDialect}`, () => {
  it('answers bad input with the contract status and a sentence that says what to do', async () => {
    const project = await projectWithCommit(`Bad Input ${Date.now()}`);
    const base = `/v1/projects/${project.id}/sessions`;

    const unknownBase = await svc.request('POST', base, { body: { base_ref: 'nope' } });
    expect(unknownBase.status).toBe(400);
    expect(unknownBase.body).toMatchObject({ code: 'VALIDATION_FAILED', issues: [{ path: '/base_ref', message: 'no branch "nope" in the repository' }] });
    expect(unknownBase.body.error).toBe('base_ref "nope" is not a branch of the repository; branches include: feature, main.');

    const wrongType = await svc.request('POST', base, { body: { prompt: 42, colour: 'red' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.issues.map((i: { path: string }) => i.path).sort()).toEqual(['/colour', '/prompt']);

    const badId = await svc.request('GET', `${base}/not-a-session`);
    expect(badId.status).toBe(400);
    expect(badId.body.error).toBe('The session id "not-a-session" is not a UUID; svc session ls lists the ids.');
    const unknown = await svc.request('GET', `${base}/00000000-0000-4000-8000-000000000000`);
    expect(unknown.status).toBe(404);

    const readOnly = (await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'r', capabilities: ['project.read'] } })).body.token;
    const refused = await svc.request('POST', base, { token: readOnly, body: {} });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('This token lacks the capability sessions.write, which is needed to start, message, stop or delete sessions.');
    expect((await svc.request('GET', base, { token: readOnly })).status).toBe(200);

    const empty = (await svc.request('POST', '/v1/projects', { body: { name: `Empty ${Date.now()}` } })).body.project;
    const nothing = await svc.request('POST', `/v1/projects/${empty.id}/sessions`, { body: {} });
    expect(nothing.status).toBe(409);
    expect(nothing.body.error).toBe(`The repository of project ${empty.slug} has no commits yet, so there is nothing to branch from; push a first commit to main.`);
  });

  it('caps sessions per account with 429, counts resume against the cap, and the idle sweep stops sessions nobody uses', async () => {
    const project = await projectWithCommit(`Cap ${Date.now()}`);
    const base = `/v1/projects/${project.id}/sessions`;
    const first = (await svc.request('POST', base, { body: { base_ref: 'feature' } })).body.session;
    const second = (await svc.request('POST', base, { body: {} })).body.session;
    expect(first).toMatchObject({ status: 'provisioning', base_ref: 'feature' });
    const third = await svc.request('POST', base, { body: {} });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({
      code: 'TOO_MANY_SESSIONS',
      error: 'This account already has 2 sessions provisioning or running, its limit (SVC_MAX_SESSIONS); stop one (svc session stop <id>) and try again.',
    });
    // Nothing was left behind by the refused create.
    expect((await svc.request('GET', base)).body.sessions).toHaveLength(2);

    for (const session of [first, second]) {
      await until('the session runs', async () => (await svc.request('GET', `${base}/${session.id}`)).body.session.status, (status) => status === 'running');
    }
    // Nobody talks to them and no lease is held: the sweep hibernates both within its interval of the deadline.
    for (const session of [first, second]) {
      await until('the idle sweep stopped the session', async () => (await svc.request('GET', `${base}/${session.id}`)).body.session, (s) => s.status === 'stopped');
    }
    const fresh = await svc.request('POST', base, { body: {} });
    expect(fresh.status).toBe(201);
    const resumed = await svc.request('POST', `${base}/${first.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.session.status).toBe('provisioning');
    const overCap = await svc.request('POST', `${base}/${second.id}/resume`);
    expect(overCap.status).toBe(429);
    const waking = await svc.request('POST', `${base}/${second.id}/messages`, { body: { text: 'wake up' } });
    expect(waking.status).toBe(429);
    expect((await svc.request('GET', `${base}/${second.id}`)).body.session.status).toBe('stopped');
    for (const session of [first, second, fresh.body.session]) expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
  }, 120_000);
});

describe(`sessions across a restart of svc on ${testDialect}`, () => {
  it('finds running sandboxes again after a restart, and boots again one that died while svc was down', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-restart-'));
    const options = { dataDir, adminToken: 'svc_u_restart_admin', env: { SVC_RUNTIME_COMMAND: idleRuntime }, ...(database.url ? { databaseUrl: database.url } : {}) };
    let server = await startTestServer(options);
    try {
      const project = await projectWithCommit(`Restart ${Date.now()}`, server);
      const base = `/v1/projects/${project.id}/sessions`;
      const created = (await server.request('POST', base, { body: {} })).body.session;
      const running = await until('the session runs', async () => (await server.request('GET', `${base}/${created.id}`)).body.session, (s) => s.status === 'running');
      const provider = server.server.services.sessions.supervisor.provider;
      const ref = (await server.server.services.db.selectFrom('sessions').select('sandbox_ref').where('id', '=', created.id).executeTakeFirstOrThrow()).sandbox_ref ?? '';

      await server.server.close();
      expect(await provider.isAlive(created.id, ref)).toBe(true);
      server = await startTestServer(options);
      const found = (await server.request('GET', `${base}/${created.id}`)).body.session;
      expect(found).toMatchObject({ status: 'running', sandbox: { state: 'active' }, created_at: running.created_at });

      await server.server.close();
      await provider.stop(created.id, ref);
      expect(await provider.isAlive(created.id, ref)).toBe(false);
      server = await startTestServer(options);
      const restarted = server;
      await until('the sandbox runs again', () => provider.isAlive(created.id, ref), (alive) => alive);
      await until('the session was booted again', async () => (await restarted.request('GET', `${base}/${created.id}`)).body.session, (s) => s.status === 'running' && s.sandbox.state === 'active');

      expect((await server.request('DELETE', `${base}/${created.id}`)).status).toBe(204);
      expect(await provider.isAlive(created.id, ref)).toBe(false);
    } finally {
      for (const session of await server.server.services.db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute()) {
        await server.server.services.sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
      }
      await server.server.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
