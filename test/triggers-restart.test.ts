/**
 * Fires that outlive their process (contract §7): queued fires survive a restart and start oldest first as
 * slots free, and a cron fire claimed and recorded by a replica that died before starting its session is
 * started once by the next one (also when it died holding the fire's claim, its session branch cut). A
 * trigger that missed several slots while svc was down, or while the clock was set forward, fires once; a
 * clock set back fires no slot twice; a run_at in the future fires at its instant.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { git, removeTempDirs } from '../src/git/testing/fixtures.js';
import { openProjectRepository } from '../src/projects/repository-of.js';
import { fireDueTriggers } from '../src/triggers/scheduler.js';
import { createTestDatabase, startTestServer, testDialect, type TestDatabase, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, until } from './support/trigger-fixtures.js';

const MANIFEST = `
triggers:
  - slug: job
    type: cron
    cron: "0 0 3 * * *"
    prompt: "job {{ message.text }}"
  - slug: once
    type: cron
    run_at: "2020-01-01T00:00:00Z"
    prompt: once
  - slug: every-second
    type: cron
    cron: "* * * * * *"
    enabled: false
    prompt: tick
`;

let database: TestDatabase;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-trigger-restart-'));
const runtime = idleRuntimeCommand();
const servers: TestServer[] = [];

async function start(): Promise<TestServer> {
  database ??= await createTestDatabase();
  const server = await startTestServer({
    adminToken: 'svc_u_trigger_restart_admin',
    dataDir,
    ...(database.url ? { databaseUrl: database.url } : {}),
    env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: runtime, SVC_TRIGGER_DISPATCH_INTERVAL_MS: '100' },
  });
  servers.push(server);
  return server;
}

afterAll(async () => {
  // The last server removes every sandbox; the others closed as a crash would leave them.
  await servers.at(-1)?.close();
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  removeTempDirs();
});

describe(`trigger fires across a restart (${testDialect})`, () => {
  it('starts queued fires oldest first after a restart, and a fire recorded by a replica that died before its session, once', async () => {
    const first = await start();
    // The scheduler stops first, so the one-off is claimed here by hand, as a replica that dies right after would.
    await first.server.tasks.stop();
    const project = await projectWithFiles(first, `Restart ${Date.now()}`, { 'svc.yaml': MANIFEST });
    await until('the triggers are read', async () => (await first.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 3);
    const holder = await first.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} });
    expect(holder.status).toBe(201);

    const queued: string[] = [];
    for (const text of ['a', 'b']) {
      const answer = await first.request('POST', `/v1/projects/${project.id}/triggers/job/fire`, { body: { message: text } });
      expect(answer.body.status).toBe('queued');
      queued.push(answer.body.session_id);
    }
    const crashed = await fireDueTriggers(first.server.services, new Date());
    expect(crashed.fireIds).toHaveLength(1);
    // Not started: its session does not exist.
    expect((await first.request('GET', `/v1/projects/${project.id}/sessions?trigger=once`)).body.sessions).toEqual([]);
    await first.server.close();

    const second = await start();
    const sessionsOf = async (slug: string) => (await second.request('GET', `/v1/projects/${project.id}/sessions?trigger=${slug}`)).body.sessions as Array<{ id: string; status: string }>;
    const firesOf = async (slug: string) => (await second.request('GET', `/v1/projects/${project.id}/triggers/${slug}/fires`)).body.fires as Array<{ status: string; session_id: string | null; reason: string | null }>;
    // Behind the two queued fires, the recorded one-off waits its turn too.
    await until('the one-off waits in the queue', () => firesOf('once'), (fires) => fires[0]?.status === 'queued');

    let slot = holder.body.session.id as string;
    for (const expected of [queued[0], queued[1]]) {
      expect((await second.request('POST', `/v1/projects/${project.id}/sessions/${slot}/stop`)).status).toBe(200);
      const started = await until(`fire for ${expected} started`, () => sessionsOf('job'), (list) => list.some((s) => s.id === expected));
      // Oldest first: the later fire is still waiting.
      expect(started.map((s) => s.id)).toEqual(queued.slice(0, queued.indexOf(expected!) + 1).reverse());
      slot = expected!;
    }
    expect((await second.request('POST', `/v1/projects/${project.id}/sessions/${slot}/stop`)).status).toBe(200);
    const once = await until('the one-off started', () => sessionsOf('once'), (list) => list.length > 0);
    expect(once).toHaveLength(1);
    // The session is created before its fire is marked started (a crash between the two leaves a fire another
    // replica starts again, idempotently), so the listing may show the session a moment before the fire.
    const onceFires = await until('the one-off fire is marked started', () => firesOf('once'), (fires) => fires[0]?.status !== 'queued');
    expect(onceFires).toEqual([expect.objectContaining({ status: 'fired', session_id: once[0]!.id, reason: null })]);
    expect((await second.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers[1]).toMatchObject({ slug: 'once', next_fire_at: null, last_fired_at: expect.any(String) });
  }, 60_000);

  it('starts a fire once when the replica that claimed it died after cutting its session branch, once the claim runs out', async () => {
    const ownDatabase = await createTestDatabase();
    const ownDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-trigger-claim-'));
    const options = { adminToken: 'svc_u_trigger_claim_admin', dataDir: ownDataDir, ...(ownDatabase.url ? { databaseUrl: ownDatabase.url } : {}) };
    const env = { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: runtime, SVC_TRIGGER_DISPATCH_INTERVAL_MS: '100' };
    const first = await startTestServer({ ...options, env });
    await first.server.tasks.stop();
    const project = await projectWithFiles(first, `Claimed ${Date.now()}`, { 'svc.yaml': MANIFEST });
    await until('the triggers are read', async () => (await first.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 3);
    const [fireId] = (await fireDueTriggers(first.server.services, new Date())).fireIds;
    // What the dead replica left: its claim, held a few seconds more, and the session branch it cut before the session's row.
    const { db } = first.server.services;
    const fire = await db.selectFrom('trigger_fires').select(['session_id']).where('id', '=', fireId!).executeTakeFirstOrThrow();
    const claimedUntil = new Date(Date.now() + 4_000).toISOString();
    await db.updateTable('trigger_fires').set({ claimed_by: 'replica-that-died', claimed_until: claimedUntil, attempts: 1 }).where('id', '=', fireId!).execute();
    const repoPath = (await openProjectRepository(first.server.services, (await db.selectFrom('projects').selectAll().where('id', '=', project.id).executeTakeFirstOrThrow()))).path;
    const mainTip = git(['--git-dir', repoPath, 'rev-parse', 'main']).trim();
    const leftover = git(['--git-dir', repoPath, 'commit-tree', `${mainTip}^{tree}`, '-p', mainTip, '-m', 'half-made'], { env: { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } }).trim();
    git(['--git-dir', repoPath, 'update-ref', `refs/heads/${fire.session_id}`, leftover]);
    await first.server.close();

    const second = await startTestServer({ ...options, env });
    onTestFinished(async () => {
      await second.close();
      await ownDatabase.drop();
      fs.rmSync(ownDataDir, { recursive: true, force: true });
    });
    const sessions = async () => (await second.request('GET', `/v1/projects/${project.id}/sessions?trigger=once`)).body.sessions as Array<{ id: string; created_at: string; branch: string }>;
    const started = await until('the claimed fire started', sessions, (list) => list.length > 0);
    expect(started).toEqual([expect.objectContaining({ id: fire.session_id })]);
    // Not before the dead replica's claim ran out; on a branch cut afresh from main, the half-made one removed.
    expect(Date.parse(started[0]!.created_at)).toBeGreaterThanOrEqual(Date.parse(claimedUntil));
    expect(git(['--git-dir', repoPath, 'rev-parse', `refs/heads/${fire.session_id}`]).trim()).toBe(mainTip);
    const fires = (await second.request('GET', `/v1/projects/${project.id}/triggers/once/fires`)).body.fires;
    expect(fires).toEqual([expect.objectContaining({ id: fireId, status: 'fired', session_id: fire.session_id, reason: null })]);
    expect(await sessions()).toHaveLength(1);
  });

  it('fires a trigger that missed many slots once, and plans it from now', async () => {
    // A server of its own: a second live server on the restart test's data directory would be another replica.
    const server = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: runtime } });
    onTestFinished(() => server.close());
    const project = await projectWithFiles(server, `Missed ${Date.now()}`, {
      'svc.yaml': 'triggers:\n  - slug: often\n    type: cron\n    cron: "*/2 * * * * *"\n    enabled: false\n    prompt: x\n',
    });
    await until('the trigger is read', async () => (await server.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 1);
    // Seen from ten minutes ahead, with every slot in between missed, as after downtime: one fire.
    const services = server.server.services;
    const row = { project_id: project.id, slug: 'often' };
    const definition = (await services.db.selectFrom('triggers').select('definition').where('project_id', '=', row.project_id).executeTakeFirstOrThrow()).definition;
    const enabled = JSON.stringify({ ...(typeof definition === 'string' ? JSON.parse(definition) : definition), enabled: true });
    const dueLongAgo = new Date(Date.now() - 60_000).toISOString();
    await services.db.updateTable('triggers').set({ enabled: true, definition: enabled, next_fire_at: dueLongAgo }).where('project_id', '=', row.project_id).execute();
    const later = new Date(Date.now() + 600_000);
    const fired = await fireDueTriggers(services, later);
    expect(fired.fireIds).toHaveLength(1);
    expect((await fireDueTriggers(services, later)).fireIds).toHaveLength(0);
    const listed = (await server.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers[0];
    expect(Date.parse(listed.next_fire_at)).toBeGreaterThan(later.getTime());
    expect(Date.parse(listed.next_fire_at) - later.getTime()).toBeLessThanOrEqual(2_000);
  });

  it('fires no slot twice when the clock is set back, and once when it is set forward past many', async () => {
    const server = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: runtime } });
    onTestFinished(() => server.close());
    // A run_at and an every-minute schedule, each planned years ahead: only the clocks given below reach them.
    const project = await projectWithFiles(server, `Clock ${Date.now()}`, {
      'svc.yaml': 'triggers:\n  - slug: minutely\n    type: cron\n    cron: "0 * * * * *"\n    prompt: x\n  - slug: later\n    type: cron\n    run_at: "2031-06-01T12:00:00Z"\n    prompt: x\n',
    });
    const listing = async () => (await server.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers as Array<{ slug: string; next_fire_at: string | null; last_fired_at: string | null }>;
    const [, later] = await until('the triggers are read', listing, (triggers) => triggers.length === 2);
    expect(later).toMatchObject({ slug: 'later', next_fire_at: '2031-06-01T12:00:00.000Z', last_fired_at: null });
    const services = server.server.services;
    await services.db.updateTable('triggers').set({ next_fire_at: '2031-01-01T00:01:00.000Z' }).where('project_id', '=', project.id).where('slug', '=', 'minutely').execute();
    const firesAt = async (instant: string) => (await fireDueTriggers(services, new Date(instant))).fireIds.length;
    const nextOf = async (slug: string) => (await listing()).find((trigger) => trigger.slug === slug)?.next_fire_at;

    expect(await firesAt('2031-01-01T00:01:00.100Z')).toBe(1);
    expect(await nextOf('minutely')).toBe('2031-01-01T00:02:00.000Z');
    // Set back an hour: the slots it lives through again already fired (as in a repeated DST hour), so none fires.
    expect(await firesAt('2030-12-31T23:01:30.000Z')).toBe(0);
    expect(await firesAt('2030-12-31T23:59:59.900Z')).toBe(0);
    expect(await nextOf('minutely')).toBe('2031-01-01T00:02:00.000Z');
    expect(await firesAt('2031-01-01T00:02:00.050Z')).toBe(1);
    // Set forward three days: every slot in between is missed, and the trigger fires once, planned from then.
    expect(await firesAt('2031-01-04T00:03:30.000Z')).toBe(1);
    expect(await firesAt('2031-01-04T00:03:31.000Z')).toBe(0);
    expect(await nextOf('minutely')).toBe('2031-01-04T00:04:00.000Z');
    const fires = (await server.request('GET', `/v1/projects/${project.id}/triggers/minutely/fires`)).body.fires;
    expect(fires.map((fire: { fired_at: string }) => fire.fired_at)).toEqual(['2031-01-04T00:03:30.000Z', '2031-01-01T00:02:00.050Z', '2031-01-01T00:01:00.100Z']);

    // A run_at in the future fires at its instant, once, then stays dormant (each count includes the minutely fire).
    expect(await firesAt('2031-06-01T11:59:59.999Z')).toBe(1);
    expect((await server.request('GET', `/v1/projects/${project.id}/triggers/later/fires`)).body.fires).toEqual([]);
    expect(await firesAt('2031-06-01T12:00:00.000Z')).toBe(2);
    expect((await listing()).find((trigger) => trigger.slug === 'later')).toMatchObject({ next_fire_at: null, last_fired_at: '2031-06-01T12:00:00.000Z' });
    expect(await firesAt('2032-01-01T00:00:00.000Z')).toBe(1);
    expect((await server.request('GET', `/v1/projects/${project.id}/triggers/later/fires`)).body.fires).toHaveLength(1);
  });
});
