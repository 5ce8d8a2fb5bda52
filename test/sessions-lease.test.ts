/**
 * The execution lease against a slow turn, with the real runtime: the scripted model answers only after
 * several idle timeouts have passed, and the daemon's renewals keep the session running all that time;
 * once the turn ends the lease is released and the idle sweep hibernates the session; a message wakes it,
 * and the agent finds its files (committed or not) and its conversation. All timing is configuration: a
 * 1 s idle timeout, a sweep every 100 ms, a renewal every 200 ms (a lease lives 600 ms).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { projectWithRuntime, sandboxLog, sessionOf, until } from './support/session-fixtures.js';
import { gate, startScriptedModel, type ScriptedModel } from './support/scripted-model.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';

const IDLE_TIMEOUT_MS = 1_000;

let svc: TestServer;
let model: ScriptedModel;

beforeAll(async () => {
  model = await startScriptedModel();
  svc = await startTestServer({ env: { SVC_IDLE_TIMEOUT_S: String(IDLE_TIMEOUT_MS / 1000), SVC_IDLE_SWEEP_INTERVAL_MS: '100', SVC_LEASE_RENEW_MS: '200' } });
});
afterAll(async () => {
  await svc.close();
  await model.close();
  removeTempDirs();
});

const leaseOf = async (sessionId: string) => (await svc.server.services.db.selectFrom('sessions').select('lease_expires_at').where('id', '=', sessionId).executeTakeFirstOrThrow()).lease_expires_at;

describe(`the execution lease during a slow turn (${testDialect})`, () => {
  it('keeps a session running while its model is slower than the idle timeout, hibernates it once idle, and wakes it with files and conversation', async () => {
    const project = await projectWithRuntime(svc, model.baseUrl, `Slow ${Date.now()}`);
    const slowAnswer = gate();
    model.push({ tool: 'bash', input: { command: 'echo slow > slow.txt && echo draft > uncommitted.txt', description: 'Write two files' }, gate: slowAnswer.promise }, { text: 'Both files are written.' });
    const created = await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: { prompt: 'Write two files, slowly.' } });
    expect(created.status).toBe(201);
    const session = created.body.session;
    const failing = (error: Error) => {
      throw new Error(`${error.message}\n${sandboxLog(svc, session.id)}`);
    };

    // The model holds its answer; the daemon sees the runtime busy and takes the lease.
    await until('the agent asked the model', async () => model.requests.filter((request) => request.agentTurn).length, (turns) => turns >= 1).catch(async (error: Error) => failing(new Error(`${error.message}\n${JSON.stringify(await sessionOf(svc, project.id, session.id))}`)));
    const firstLease = await until('the daemon took the lease', () => leaseOf(session.id), (lease) => lease !== null).catch(failing);
    // Renewals keep pushing the lease's end: wait until it lies twice the idle timeout past the first one
    // (so more than the idle timeout has passed with the sweep looking every 100 ms)…
    await until('the lease was renewed past two idle timeouts', () => leaseOf(session.id), (lease) => lease !== null && Date.parse(lease) - Date.parse(firstLease as string) >= 2 * IDLE_TIMEOUT_MS).catch(failing);
    // …and the session is still running, its agent still at work.
    expect(await sessionOf(svc, project.id, session.id)).toMatchObject({ status: 'running', sandbox: { state: 'active' } });
    // The held step is taken, its answer not given: nothing of it has run.
    expect(model.remaining()).toBe(1);
    expect(fs.existsSync(path.join(svc.dataDir, 'sandboxes', session.id, 'workspace', 'slow.txt'))).toBe(false);

    slowAnswer.open();
    await until('the agent finished its turn', async () => model.remaining(), (left) => left === 0);
    await until('the daemon released the lease', () => leaseOf(session.id), (lease) => lease === null).catch(failing);
    const hibernated = await until('the idle sweep hibernated the session', () => sessionOf(svc, project.id, session.id), (s) => s.status === 'stopped');
    expect(hibernated.sandbox.state).toBe('stopped');
    const workspace = path.join(svc.dataDir, 'sandboxes', session.id, 'workspace');
    expect(fs.readFileSync(path.join(workspace, 'slow.txt'), 'utf8')).toBe('slow\n');
    expect(fs.readFileSync(path.join(workspace, 'uncommitted.txt'), 'utf8')).toBe('draft\n');

    model.push({ tool: 'bash', input: { command: 'cat uncommitted.txt >> slow.txt', description: 'Append the draft' } }, { text: 'Appended.' });
    const turnsBefore = model.requests.length;
    const woken = await svc.request('POST', `/v1/projects/${project.id}/sessions/${session.id}/messages`, { body: { text: 'Append the draft to slow.txt.' } });
    expect(woken.status).toBe(202);
    expect(woken.body.session.status).toBe('provisioning');
    await until('the woken agent appended the draft', async () => fs.readFileSync(path.join(workspace, 'slow.txt'), 'utf8'), (text) => text === 'slow\ndraft\n').catch(failing);
    const wakeTurn = model.requests.slice(turnsBefore).find((request) => request.agentTurn && request.lastUserText === 'Append the draft to slow.txt.');
    // The conversation survived hibernation: the model sees the first prompt and its own earlier answer.
    expect(JSON.stringify(wakeTurn?.body.messages)).toContain('Write two files, slowly.');
    expect(JSON.stringify(wakeTurn?.body.messages)).toContain('Both files are written.');
  }, 180_000);
});
