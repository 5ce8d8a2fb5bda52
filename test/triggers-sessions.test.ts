/**
 * Session modes and manual fires (spec 3, contract §7): `reuse` re-prompts the trigger's most recent
 * session and wakes it, `pinned` takes its session, else the reusable one, else a fresh one, each fallback
 * recorded on the fire; `fresh` waits for a slot at the cap and starts when one frees. Fire-now needs
 * triggers.fire; the CLI fires and prints the session.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { runTriggerFire } from '../src/cli/trigger/fire.js';
import { adminCliEnv, captureDeps } from './support/cli-harness.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, mergeFiles, projectWithFiles, until, type TriggerProject } from './support/trigger-fixtures.js';

const GONE = '3f2b8c1e-9d4a-4e6b-8a7c-1d2e3f4a5b6c';
const manifest = (extra = '') => `
triggers:
  - slug: again
    type: cron
    cron: "0 0 3 * * *"
    session_mode: reuse
    prompt: "again {{ message.text }}"
  - slug: pin-gone
    type: webhook
    secret_env: HOOK
    session_mode: pinned
    session_id: ${GONE}
    prompt: pinned
  - slug: each-time
    type: cron
    cron: "0 0 3 * * *"
    prompt: fresh
  - slug: off
    type: cron
    cron: "0 0 3 * * *"
    enabled: false
    prompt: never
${extra}`;

let svc: TestServer;
let project: TriggerProject;

// Each test has a server of its own: two free session slots, and no earlier session of any trigger.
beforeEach(async () => {
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '2', SVC_RUNTIME_COMMAND: idleRuntimeCommand(), SVC_TRIGGER_DISPATCH_INTERVAL_MS: '100' } });
  project = await projectWithFiles(svc, `Modes ${Date.now()}`, { 'svc.yaml': manifest() });
});
afterEach(async () => {
  await svc.close();
});
afterAll(() => removeTempDirs());

async function fire(slug: string, message?: string, token?: string) {
  return svc.request('POST', `/v1/projects/${project.id}/triggers/${slug}/fire`, { body: message === undefined ? {} : { message }, ...(token ? { token } : {}) });
}

async function fires(slug: string) {
  return (await svc.request('GET', `/v1/projects/${project.id}/triggers/${slug}/fires`)).body.fires as Array<{ status: string; session_id: string; fallback: string | null; reason: string | null; source: string }>;
}

function session(id: string) {
  return until(
    `session ${id} exists`,
    async () => (await svc.request('GET', `/v1/projects/${project.id}/sessions/${id}`)).body.session,
    (value) => value !== undefined,
  );
}

describe(`session modes and fire-now (${testDialect})`, () => {
  it('reuses, wakes and pins sessions with their fallbacks recorded, and starts a queued fresh fire when a slot frees', async () => {
    const first = await fire('again', 'one');
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ status: 'fired', session_id: expect.any(String), fire_id: expect.any(String) });
    const reused = first.body.session_id as string;
    expect(await session(reused)).toMatchObject({ trigger_slug: 'again' });
    expect((await fires('again'))[0]).toMatchObject({ source: 'manual', status: 'fired', fallback: 'the trigger has no earlier session to re-prompt; started a fresh one' });

    expect((await fire('again', 'two')).body).toMatchObject({ status: 'fired', session_id: reused });
    expect((await fires('again'))[0]).toMatchObject({ fallback: null, session_id: reused });

    // A stopped session is woken by the next fire.
    await until('the reused session runs', () => session(reused), (s) => s.status === 'running');
    expect((await svc.request('POST', `/v1/projects/${project.id}/sessions/${reused}/stop`)).status).toBe(200);
    expect((await fire('again', 'three')).body).toMatchObject({ status: 'fired', session_id: reused });
    await until('the reused session is woken', () => session(reused), (s) => s.status === 'provisioning' || s.status === 'running');

    // pinned to a session that does not exist: fresh, then the trigger's own session.
    const pinnedFirst = (await fire('pin-gone')).body;
    expect(pinnedFirst).toMatchObject({ status: 'fired', session_id: expect.any(String) });
    expect(pinnedFirst.session_id).not.toBe(reused);
    const pinnedSecond = (await fire('pin-gone')).body;
    expect(pinnedSecond).toMatchObject({ status: 'fired', session_id: pinnedFirst.session_id });
    expect((await fires('pin-gone')).map((f) => f.fallback)).toEqual([
      `the pinned session ${GONE} is gone; re-prompted the trigger's most recent session ${pinnedFirst.session_id}`,
      `the pinned session ${GONE} is gone and the trigger has no earlier session; started a fresh one`,
    ]);

    // pinned to a live session: that one, no fallback.
    await mergeFiles(svc, project, {
      'svc.yaml': manifest(`  - slug: pin-live
    type: cron
    cron: "0 0 3 * * *"
    session_mode: pinned
    session_id: ${reused}
    prompt: pinned live
`),
    });
    await until('pin-live is listed', async () => (await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 5);
    expect((await fire('pin-live')).body).toMatchObject({ status: 'fired', session_id: reused });
    expect((await fires('pin-live'))[0]).toMatchObject({ fallback: null, session_id: reused });

    // Both slots are taken: a fresh fire waits, and starts once a slot frees.
    const queued = await fire('each-time');
    expect(queued.body).toEqual({
      status: 'queued',
      reason: 'the account has 2 sessions provisioning or running, its limit (SVC_MAX_SESSIONS); the fire starts when one stops',
      session_id: expect.any(String),
      fire_id: expect.any(String),
    });
    await until('the pinned session runs', () => session(pinnedFirst.session_id), (s) => s.status === 'running');
    expect((await svc.request('POST', `/v1/projects/${project.id}/sessions/${pinnedFirst.session_id}/stop`)).status).toBe(200);
    const started = await until('the queued fire started', () => fires('each-time'), (list) => list[0]?.status === 'fired');
    expect(started[0]).toMatchObject({ status: 'fired', reason: null, session_id: queued.body.session_id });
    expect(await session(queued.body.session_id)).toMatchObject({ trigger_slug: 'each-time' });
  });

  it('needs triggers.fire, refuses a disabled or unknown trigger, and fires from the CLI', async () => {
    const readOnly = (await svc.request('POST', `/v1/projects/${project.id}/tokens`, { body: { name: 'reader', capabilities: ['project.read'] } })).body.token;
    const refused = await fire('again', 'x', readOnly);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('This token lacks the capability triggers.fire, which is needed to fire triggers.');
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers`, { token: readOnly })).status).toBe(200);

    const disabled = await fire('off');
    expect(disabled.status).toBe(409);
    expect(disabled.body.error).toBe('Trigger off is disabled (enabled: false in the manifest); enable it on main before firing it.');
    const unknown = await fire('nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('svc trigger ls lists them');
    const badBody = await svc.request('POST', `/v1/projects/${project.id}/triggers/again/fire`, { body: { message: 3 } });
    expect(badBody.status).toBe(400);

    const deps = captureDeps({ env: adminCliEnv(svc) });
    await runTriggerFire('again', { project: project.id, message: 'from the CLI' }, deps);
    const reused = (await fires('again'))[0]!.session_id;
    expect(deps.out()).toBe(`${reused}\n`);
    expect(deps.err()).toContain(`svc session logs ${reused} --follow`);
    const usage = captureDeps({ env: adminCliEnv(svc) });
    await expect(runTriggerFire('Not A Slug', { project: project.id }, usage)).rejects.toMatchObject({ exitCode: 2 });
  });
});
