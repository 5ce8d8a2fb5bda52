/**
 * Two replicas on one database run the scheduler side by side (contract §7): each due fire is claimed by
 * one of them, so a trigger due every second fires once per second, never twice, never skipped.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { startReplicas, type Replicas } from './support/replicas.js';
import { testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, until } from './support/trigger-fixtures.js';

let replicas: Replicas;
let first: TestServer;
let second: TestServer;

beforeAll(async () => {
  replicas = await startReplicas({ adminToken: 'svc_u_trigger_replicas_admin', env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand() } });
  ({ first, second } = replicas);
});
afterAll(async () => {
  await replicas.close();
  removeTempDirs();
});

describe(`the scheduler on two replicas of one ${testDialect} database`, () => {
  it('fires a trigger due every second once per second, never twice', async () => {
    const project = await projectWithFiles(first, `Replicas ${Date.now()}`, {
      'svc.yaml': 'triggers:\n  - slug: tick\n    type: cron\n    cron: "* * * * * *"\n    prompt: "tick {{ cron.fired_at }}"\n',
    });
    // Both replicas read the set (the second from its listing, as after a branch moved elsewhere).
    await until('the first replica lists it', async () => (await first.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 1);
    await until('the second replica lists it', async () => (await second.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 1);
    const fires = await until(
      'six fires',
      async () => (await second.request('GET', `/v1/projects/${project.id}/triggers/tick/fires`)).body.fires as Array<{ fired_at: string; status: string }>,
      (list) => list.length >= 6,
    );
    const seconds = fires.map((fire) => Math.floor(Date.parse(fire.fired_at) / 1000)).sort((a, b) => a - b);
    // Once per second: no second twice (how late each came is the benchmark's).
    expect(new Set(seconds).size).toBe(seconds.length);
    // One session: the first fire took the one slot, the others wait for it.
    const sessions = (await first.request('GET', `/v1/projects/${project.id}/sessions?trigger=tick`)).body.sessions;
    expect(sessions).toHaveLength(1);
  });
});

describe(`webhook deliveries on two replicas of one ${testDialect} database`, () => {
  // Replicas of their own: the slot the first delivery's session takes is not the scheduler test's.
  let hooks: Replicas;
  beforeAll(async () => {
    hooks = await startReplicas({ adminToken: 'svc_u_webhook_replicas_admin', env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand() } });
  });
  afterAll(async () => {
    await hooks.close();
  });

  it("checks a webhook delivery against a secret rotated on the other replica: the new one's signature fires at once, the old one's is refused", async () => {
    const project = await projectWithFiles(hooks.first, `Rotated ${Date.now()}`, {
      'svc.yaml': 'triggers:\n  - slug: hook\n    type: webhook\n    secret_env: HOOK_SECRET\n    prompt: "hook {{ body.n }}"\n',
    });
    const setSecret = async (replica: TestServer, value: string) => expect((await replica.request('PUT', `/v1/projects/${project.id}/secrets/HOOK_SECRET`, { body: { value } })).status).toBeLessThan(300);
    const deliver = async (secret: string, n: number) => {
      const body = JSON.stringify({ n });
      const response = await fetch(`${hooks.first.url}/v1/webhooks/projects/${project.id}/hook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
        body,
      });
      return { status: response.status, body: (await response.json()) as { status?: string; error?: string } };
    };
    await until('the first replica lists it', async () => (await hooks.first.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 1);
    await setSecret(hooks.first, 'old-secret');
    // The first replica has checked a delivery with the old secret, and holds it.
    expect((await deliver('old-secret', 1)).body.status).toMatch(/^(fired|queued)$/);

    await setSecret(hooks.second, 'new-secret');
    const withNew = await deliver('new-secret', 2);
    expect(withNew.status).toBe(202);
    const withOld = await deliver('old-secret', 3);
    expect(withOld).toEqual({ status: 401, body: expect.objectContaining({ error: "X-Hub-Signature-256 does not match the body: sign the exact bytes sent with the secret in the trigger's secret_env." }) });
    // Deleted on the other replica: 409 at once.
    expect((await hooks.second.request('DELETE', `/v1/projects/${project.id}/secrets/HOOK_SECRET`)).status).toBe(204);
    expect((await deliver('new-secret', 4)).status).toBe(409);
    // Recorded: the two accepted deliveries only.
    expect((await hooks.first.request('GET', `/v1/projects/${project.id}/triggers/hook/fires`)).body.fires).toHaveLength(2);
  });
});
