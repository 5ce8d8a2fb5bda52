/**
 * The receiver's 500 (spec 3 "Errors": authentication succeeded but the fire failed): the database refuses
 * to record the fire. The sender is told to deliver again with the contract's error body, nothing of the
 * refused delivery is left behind (no fire, no last_fired_at), and the same delivery sent again once the
 * database accepts writes is recorded as a new fire, not a duplicate: nothing is lost. Fires that arrived while such
 * a group was being written are decided from what was committed.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { FireBatch } from '../src/triggers/fire-batch.js';
import { WebhookTargets } from '../src/triggers/webhook-targets.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, type TriggerProject } from './support/trigger-fixtures.js';

const SECRET = 'failure-secret';

let svc: TestServer;
let project: TriggerProject;

/** Each suite its own server and project: the sessions one suite's fires start take the account's one slot. */
function serverPerSuite(name: string): void {
  beforeAll(async () => {
    svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand() } });
    project = await projectWithFiles(svc, `${name} ${Date.now()}`, {
      'svc.yaml': 'triggers:\n  - slug: hook\n    type: webhook\n    secret_env: HOOK_SECRET\n    prompt: "{{ body.action }}"\n',
    });
    expect((await svc.request('PUT', `/v1/projects/${project.id}/secrets/HOOK_SECRET`, { body: { value: SECRET } })).status).toBeLessThan(300);
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers).toHaveLength(1);
  });
  afterAll(async () => {
    await svc.close();
    removeTempDirs();
  });
}

/** A database trigger that fails every insert into trigger_fires, as a full disk or a lost primary would. */
async function refuseFires(): Promise<void> {
  const db = svc.server.services.db;
  if (testDialect === 'postgres') {
    await sql`create function refuse_fires() returns trigger language plpgsql as $$ begin raise exception 'no space left on device'; end $$`.execute(db);
    await sql`create trigger refuse_fires before insert on trigger_fires for each row execute function refuse_fires()`.execute(db);
  } else {
    await sql`create trigger refuse_fires before insert on trigger_fires begin select raise(abort, 'no space left on device'); end`.execute(db);
  }
}

/**
 * As `refuseFires`, for the one delivery id given: the group holding it cannot be written, the others can. On
 * PostgreSQL the refusal takes a while, so the fires behind it arrive while it is written.
 */
async function refuseDelivery(deliveryId: string): Promise<void> {
  const db = svc.server.services.db;
  if (testDialect === 'postgres') {
    await sql`create function refuse_fires() returns trigger language plpgsql as $$ begin if new.delivery_id = ${sql.lit(deliveryId)} then perform pg_sleep(0.3); raise exception 'no space left on device'; end if; return new; end $$`.execute(db);
    await sql`create trigger refuse_fires before insert on trigger_fires for each row execute function refuse_fires()`.execute(db);
  } else {
    await sql`create trigger refuse_fires before insert on trigger_fires when new.delivery_id = ${sql.lit(deliveryId)} begin select raise(abort, 'no space left on device'); end`.execute(db);
  }
}

async function acceptFires(): Promise<void> {
  const db = svc.server.services.db;
  if (testDialect === 'postgres') {
    await sql`drop trigger refuse_fires on trigger_fires`.execute(db);
    await sql`drop function refuse_fires()`.execute(db);
  } else {
    await sql`drop trigger refuse_fires`.execute(db);
  }
}

function deliver(body: string, deliveryId: string) {
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  return svc.request('POST', `/v1/webhooks/projects/${project.id}/hook`, {
    token: null,
    rawBody: body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature, 'x-github-delivery': deliveryId },
  });
}

describe(`the webhook receiver when its fire cannot be recorded (${testDialect})`, () => {
  serverPerSuite('Webhook failure');

  it('answers 500 with the error body, keeps nothing of the delivery, and records it when sent again', async () => {
    const body = JSON.stringify({ action: 'opened' });
    await refuseFires();
    let refused;
    try {
      refused = await deliver(body, 'delivery-refused');
    } finally {
      await acceptFires();
    }
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ code: 'INTERNAL', error: 'The webhook was authenticated but its fire could not be recorded; the sender may deliver it again.' });
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers/hook/fires`)).status).toBe(200);
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers/hook/fires`)).body.fires).toEqual([]);
    expect((await svc.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers[0].last_fired_at).toBeNull();

    // The sender's retry carries the same delivery id: it is the first fire, not a duplicate.
    const retried = await deliver(body, 'delivery-refused');
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ status: 'fired', session_id: expect.any(String) });
    const fires = (await svc.request('GET', `/v1/projects/${project.id}/triggers/hook/fires`)).body.fires;
    expect(fires.map((fire: { source: string; status: string }) => `${fire.source}:${fire.status}`)).toEqual(['webhook:fired']);
  });
});

describe(`webhook fires recorded behind a group that cannot be written (${testDialect})`, () => {
  serverPerSuite('Webhook failure behind');

  it('answers each fire behind it as if that group had never been decided: a repeat is the duplicate of a fire that is listed', async () => {
    // The account's one slot is taken, so every fire is queued and none starts a session.
    expect((await svc.request('POST', `/v1/projects/${project.id}/sessions`, { body: {} })).status).toBe(201);
    // The receiver's own recorder, given groups as they would arrive: all the fires of one turn are one group.
    const { services } = svc.server;
    const targets = new WebhookTargets(services.db, services.dialect);
    const fires = new FireBatch(services, targets);
    const target = (await targets.find(project.id, 'hook'))!;
    const record = (deliveryId: string) =>
      fires
        .record({ project: target.project, trigger: target.trigger, source: 'webhook', prompt: 'behind', actorUserId: target.project.created_by, firedAt: new Date().toISOString(), deliveryId, target })
        .then((row) => ({ deliveryId, row }), () => ({ deliveryId, row: null }));
    await refuseDelivery('behind-refused');
    let recorded;
    try {
      const first = ['behind-a', 'behind-refused', 'behind-b'].map(record);
      // The first group is being written (on PostgreSQL its refused fire takes 0.3 s) when the second arrives.
      await new Promise((resolve) => setTimeout(resolve, 100));
      recorded = await Promise.all([...first, ...['behind-a', 'behind-b', 'behind-c'].map(record)]);
    } finally {
      await acceptFires();
    }
    expect(recorded.map(({ deliveryId, row }) => `${deliveryId}:${row?.status ?? 'refused'}`)).toEqual([
      'behind-a:queued',
      'behind-refused:refused',
      'behind-b:queued',
      'behind-a:duplicate',
      'behind-b:duplicate',
      'behind-c:queued',
    ]);
    const listed = (await svc.request('GET', `/v1/projects/${project.id}/triggers/hook/fires`)).body.fires as Array<{ id: string; status: string; session_id: string }>;
    expect(listed.map((fire) => fire.status).sort()).toEqual(['duplicate', 'duplicate', 'queued', 'queued', 'queued']);
    for (const { row } of recorded) if (row) expect(listed.find((fire) => fire.id === row.id)).toMatchObject({ status: row.status, session_id: row.session_id });
    // Each repeat names the session of the fire it repeats.
    expect(recorded[3]!.row!.session_id).toBe(recorded[0]!.row!.session_id);
    expect(recorded[4]!.row!.session_id).toBe(recorded[2]!.row!.session_id);
  });
});
