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
import { adminCliEnv, runCli } from './support/cli-harness.js';
import { projectWithCommit as projectWithCommitOf, until } from './support/session-fixtures.js';
import { createTestDatabase, startTestServer, testDialect, type TestServer } from './support/test-server.js';

let svc: TestServer;
let idleRuntime: string;

beforeAll(async () => {
  // A runtime that starts and answers nothing: the daemon is healthy, the agent never works. It writes
  // down the environment it was given, which is what the agent would see.
  idleRuntime = path.join(tempDir(), 'idle-runtime');
  fs.writeFileSync(idleRuntime, '#!/bin/sh\nenv > "$HOME/runtime-env.txt"\nexec sleep 600\n', { mode: 0o755 });
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '2', SVC_RUNTIME_COMMAND: idleRuntime, SVC_IDLE_TIMEOUT_S: '2', SVC_IDLE_SWEEP_INTERVAL_MS: '100' } });
});
afterAll(async () => {
  for (const session of await svc.server.services.db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute()) {
    await svc.server.services.sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
  }
  await svc.close();
  removeTempDirs();
});

const projectWithCommit = (name: string, server: TestServer = svc) => projectWithCommitOf(server, name, { 'README.md': 'hi\n' }, ['main', 'feature']);

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

    const nowhere = await svc.request('GET', `${base}?before=00000000-0000-4000-8000-000000000000`);
    expect(nowhere.status).toBe(400);
    expect(nowhere.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      issues: [{ path: '/before', message: '"00000000-0000-4000-8000-000000000000" names no session of this project; pass the next_before of the page before, or leave before out for the newest sessions.' }],
    });
    expect((await svc.request('GET', `${base}?before=not-an-id`)).body.issues[0].path).toBe('/before');
    const tooMany = await svc.request('GET', `${base}?limit=501`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.issues[0]).toMatchObject({ path: '/limit' });

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
    await listsAPageAtATime(base, project.id, second.id, first.id);
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

/**
 * The API and `svc session ls` list the project's two stopped sessions (`newer` created after `older`) a page
 * at a time: each page's next_before leads on, the oldest page's is null, and filters page the same way.
 */
async function listsAPageAtATime(base: string, projectId: string, newer: string, older: string): Promise<void> {
  const ids = (page: { sessions: Array<{ id: string }> }) => page.sessions.map((session) => session.id);
  const all = (await svc.request('GET', base)).body;
  expect(ids(all)).toEqual([newer, older]);
  expect(all.next_before).toBeNull();

  const first = (await svc.request('GET', `${base}?limit=1`)).body;
  expect(first).toEqual({ sessions: [all.sessions[0]], next_before: newer });
  expect((await svc.request('GET', `${base}?limit=1&before=${newer}`)).body).toEqual({ sessions: [all.sessions[1]], next_before: null });
  const stopped = (await svc.request('GET', `${base}?status=stopped&limit=1&before=${newer}`)).body;
  expect(stopped).toEqual({ sessions: [all.sessions[1]], next_before: null });
  expect((await svc.request('GET', `${base}?status=running&before=${newer}`)).body).toEqual({ sessions: [], next_before: null });

  const env = adminCliEnv(svc);
  const page = await runCli(['session', 'ls', '--limit', '1', '--project', projectId], { env });
  expect(page.code).toBe(0);
  expect(page.stdout.split('\t')[0]).toBe(newer);
  expect(page.stderr).toBe(`Older sessions are not listed; the next page: svc session ls --limit 1 --before ${newer} --project ${projectId}\n`);
  const rest = await runCli(['session', 'ls', '--limit', '1', '--before', newer, '--project', projectId, '--json'], { env });
  expect(JSON.parse(rest.stdout).map((session: { id: string }) => session.id)).toEqual([older]);
  expect(rest.stderr).toBe('');
  const bad = await runCli(['session', 'ls', '--limit', '0', '--project', projectId], { env });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--limit must be an integer from 1 to 500.');
}

describe(`what a sandbox is given on ${testDialect}`, () => {
  it("gives the runtime spec 3's variables for the project's secrets and the session's model, and the secrets themselves", async () => {
    const project = await projectWithCommit(`Environment ${Date.now()}`);
    for (const [name, value] of [['DEPLOY_KEY', 'k-1'], ['API_TOKEN', 'multi word value']]) {
      expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/${name}`, { body: { value } })).status).toBe(201);
    }
    const base = `/v1/projects/${project.id}/sessions`;
    const created = await svc.request('POST', base, { body: { model: 'scripted/scripted-model', agent: 'reviewer' } });
    expect(created.status).toBe(201);
    const session = created.body.session;
    const envFile = path.join(svc.dataDir, 'sandboxes', session.id, 'home', 'runtime-env.txt');
    const written = () => until('the runtime wrote its environment', async () => (fs.existsSync(envFile) ? fs.readFileSync(envFile, 'utf8') : ''), (text) => text.includes('DEPLOY_KEY=') && text.endsWith('\n'));
    const env = Object.fromEntries(
      (await written())
        .trim()
        .split('\n')
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({ DEPLOY_KEY: 'k-1', API_TOKEN: 'multi word value', SVC_PROJECT_SECRET_NAMES: 'API_TOKEN,DEPLOY_KEY', SVC_AGENT_MODEL: 'scripted/scripted-model', SVC_AGENT_NAME: 'reviewer', SVC_BOOTSTRAP_RUNTIME_SESSION: '1' });
    expect(env.SVC_PROJECT_SECRETS_REVISION).toMatch(/^[0-9a-f]{16}$/);
    // Created without a prompt: there is none to send.
    expect(env.SVC_INITIAL_PROMPT).toBeUndefined();
    // This svc offers no model gateway, so spec 3's SVC_LLM_* are absent (test/bundled-model-access.test.ts covers the gates).
    expect(Object.keys(env).filter((name) => name.startsWith('SVC_LLM_'))).toEqual([]);
    // The process provider gives each daemon a free port of its own (a container has 8000).
    expect(Number(env.SVC_SERVICE_PORT)).toBeGreaterThan(0);
    expect(session.daemon_url ?? (await svc.server.services.db.selectFrom('sessions').select('daemon_url').where('id', '=', session.id).executeTakeFirstOrThrow()).daemon_url).toBe(`http://127.0.0.1:${env.SVC_SERVICE_PORT}`);

    // A changed secret changes the revision the next boot sees.
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/DEPLOY_KEY`, { body: { value: 'k-2' } })).status).toBe(200);
    expect((await svc.request('POST', `${base}/${session.id}/stop`)).status).toBe(200);
    fs.rmSync(envFile);
    expect((await svc.request('POST', `${base}/${session.id}/resume`)).status).toBe(200);
    const again = await written();
    expect(again).toContain('DEPLOY_KEY=k-2\n');
    expect(again).not.toContain(`SVC_PROJECT_SECRETS_REVISION=${env.SVC_PROJECT_SECRETS_REVISION}\n`);
    expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
  }, 60_000);

  it('fails a session whose sandbox cannot start, says why, and keeps its files', async () => {
    const project = await projectWithCommit(`Broken ${Date.now()}`);
    // A secret is a plain variable of the sandbox: this one breaks every Node process started there.
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/NODE_OPTIONS`, { body: { value: '--require /nonexistent/preload.js' } })).status).toBe(201);
    const base = `/v1/projects/${project.id}/sessions`;
    const session = (await svc.request('POST', base, { body: {} })).body.session;
    const failed = await until('the session failed', async () => (await svc.request('GET', `${base}/${session.id}`)).body.session, (s) => s.status === 'failed');
    expect(failed).toMatchObject({ status: 'failed', sandbox: { state: 'error' } });
    expect(failed.error).toBe('The sandbox exited before its daemon answered; its log is in the sandbox directory. Resume the session to try again.');
    expect(fs.readFileSync(path.join(svc.dataDir, 'sandboxes', session.id, 'sandbox.log'), 'utf8')).toContain('/nonexistent/preload.js');
    expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
  }, 60_000);
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
