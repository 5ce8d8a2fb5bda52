/**
 * Bundled model access (spec 3, SVC_LLM_API_KEY and SVC_LLM_BASE_URL): a sandbox is given the operator's
 * model gateway only when the operator offers one, the project opted in and the session's user is
 * entitled. The runtime here writes down the environment it was given, which is what the agent would see.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs, tempDir } from '../src/git/testing/fixtures.js';
import { projectWithCommit, until } from './support/session-fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

const GATEWAY = { SVC_LLM_API_KEY: 'operator-gateway-key', SVC_LLM_BASE_URL: 'https://gateway.example/v1' };

let svc: TestServer;

beforeAll(async () => {
  const runtime = path.join(tempDir(), 'env-runtime');
  fs.writeFileSync(runtime, '#!/bin/sh\nenv > "$HOME/runtime-env.txt"\nexec sleep 600\n', { mode: 0o755 });
  svc = await startTestServer({ env: { SVC_RUNTIME_COMMAND: runtime, ...GATEWAY } });
});
afterAll(async () => {
  for (const session of await svc.server.services.db.selectFrom('sessions').select(['id', 'sandbox_ref']).execute()) {
    await svc.server.services.sessions.supervisor.provider.remove(session.id, session.sandbox_ref).catch(() => undefined);
  }
  await svc.close();
  removeTempDirs();
});

/** The environment the session's runtime was started with at its latest boot. */
async function runtimeEnvironment(sessionId: string): Promise<Record<string, string>> {
  const envFile = path.join(svc.dataDir, 'sandboxes', sessionId, 'home', 'runtime-env.txt');
  const text = await until('the runtime wrote its environment', async () => (fs.existsSync(envFile) ? fs.readFileSync(envFile, 'utf8') : ''), (t) => t.includes('SVC_SESSION_ID=') && t.endsWith('\n'));
  fs.rmSync(envFile);
  return Object.fromEntries(text.trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

const gatewayVariables = (env: Record<string, string>) => Object.keys(env).filter((name) => name.startsWith('SVC_LLM_'));

async function setGates(projectId: string, gates: { project: boolean; user: boolean }) {
  const project = await svc.request('PATCH', `/v1/projects/${projectId}`, { body: { bundled_model_access: gates.project } });
  expect(project.status).toBe(200);
  expect(project.body.project.bundled_model_access).toBe(gates.project);
  const user = await svc.request('PATCH', '/v1/users/me', { body: { model_access: gates.user } });
  expect(user.status).toBe(200);
  expect(user.body.user.model_access).toBe(gates.user);
}

describe(`bundled model access on ${testDialect}`, () => {
  it('gives the runtime the gateway only while the project opted in and the user is entitled, at create and at every resume', async () => {
    const project = await projectWithCommit(svc, `Gateway ${Date.now()}`);
    expect((await svc.request('GET', `/v1/projects/${project.id}`)).body.project.bundled_model_access).toBe(false);
    const base = `/v1/projects/${project.id}/sessions`;

    await setGates(project.id, { project: true, user: true });
    const session = (await svc.request('POST', base, { body: {} })).body.session;
    const granted = await runtimeEnvironment(session.id);
    expect(granted.SVC_LLM_API_KEY).toBe(GATEWAY.SVC_LLM_API_KEY);
    expect(granted.SVC_LLM_BASE_URL).toBe(GATEWAY.SVC_LLM_BASE_URL);

    const reboot = async () => {
      await until('the session runs', async () => (await svc.request('GET', `${base}/${session.id}`)).body.session, (s) => s.status === 'running');
      expect((await svc.request('POST', `${base}/${session.id}/stop`)).status).toBe(200);
      expect((await svc.request('POST', `${base}/${session.id}/resume`)).status).toBe(200);
      return runtimeEnvironment(session.id);
    };
    await setGates(project.id, { project: false, user: true });
    expect(gatewayVariables(await reboot())).toEqual([]);
    await setGates(project.id, { project: true, user: false });
    expect(gatewayVariables(await reboot())).toEqual([]);
    await setGates(project.id, { project: true, user: true });
    expect(gatewayVariables(await reboot()).sort()).toEqual(['SVC_LLM_API_KEY', 'SVC_LLM_BASE_URL']);
    expect((await svc.request('DELETE', `${base}/${session.id}`)).status).toBe(204);
  }, 120_000);

  it('gives no sandbox the gateway when the operator offers none, whatever the project and user say', async () => {
    const runtime = path.join(tempDir(), 'env-runtime');
    fs.writeFileSync(runtime, '#!/bin/sh\nenv > "$HOME/runtime-env.txt"\nexec sleep 600\n', { mode: 0o755 });
    const plain = await startTestServer({ env: { SVC_RUNTIME_COMMAND: runtime } });
    try {
      const project = await projectWithCommit(plain, `No Gateway ${Date.now()}`);
      expect((await plain.request('PATCH', `/v1/projects/${project.id}`, { body: { bundled_model_access: true } })).body.project.bundled_model_access).toBe(true);
      expect((await plain.request('PATCH', '/v1/users/me', { body: { model_access: true } })).body.user.model_access).toBe(true);
      const session = (await plain.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).body.session;
      const envFile = path.join(plain.dataDir, 'sandboxes', session.id, 'home', 'runtime-env.txt');
      const text = await until('the runtime wrote its environment', async () => (fs.existsSync(envFile) ? fs.readFileSync(envFile, 'utf8') : ''), (t) => t.includes('SVC_SESSION_ID=') && t.endsWith('\n'));
      expect(text).not.toContain('SVC_LLM_');
      expect((await plain.request('DELETE', `/v1/projects/${project.id}/sessions/${session.id}`)).status).toBe(204);
    } finally {
      await plain.close();
    }
  }, 60_000);

  it('refuses wrong types with the field path, and leaves entitlement to administrators and opt-in to project admins', async () => {
    const project = await projectWithCommit(svc, `Gateway Input ${Date.now()}`);
    const wrongProject = await svc.request('PATCH', `/v1/projects/${project.id}`, { body: { bundled_model_access: 'yes' } });
    expect(wrongProject.status).toBe(400);
    expect(wrongProject.body.issues.map((i: { path: string }) => i.path)).toEqual(['/bundled_model_access']);
    const wrongUser = await svc.request('PATCH', '/v1/users/me', { body: { model_access: 1 } });
    expect(wrongUser.status).toBe(400);
    expect(wrongUser.body.issues.map((i: { path: string }) => i.path)).toEqual(['/model_access']);
    const missing = await svc.request('PATCH', '/v1/users/me', { body: {} });
    expect(missing.status).toBe(400);

    const person = (await svc.request('POST', '/v1/users', { body: { name: `member-${Date.now()}` } })).body;
    expect(person.user.model_access).toBe(false);
    const selfGrant = await svc.request('PATCH', '/v1/users/me', { token: person.token, body: { model_access: true } });
    expect(selfGrant.status).toBe(403);
    expect(selfGrant.body.error).toBe('Only an administrator can grant or revoke bundled model access.');
    expect((await svc.request('PUT', `/v1/projects/${project.id}/members/${person.user.id}`, { body: { role: 'member' } })).status).toBe(201);
    const optIn = await svc.request('PATCH', `/v1/projects/${project.id}`, { token: person.token, body: { bundled_model_access: true } });
    expect(optIn.status).toBe(403);
    expect((await svc.request('GET', `/v1/projects/${project.id}`)).body.project.bundled_model_access).toBe(false);

    const granted = await svc.request('PATCH', `/v1/users/${person.user.id}`, { body: { model_access: true } });
    expect(granted.status).toBe(200);
    expect(granted.body.user).toMatchObject({ id: person.user.id, model_access: true });
    expect((await svc.request('GET', '/v1/users')).body.users.find((u: { id: string }) => u.id === person.user.id).model_access).toBe(true);
  });
});
