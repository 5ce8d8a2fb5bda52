/**
 * Two replicas on one database run the scheduler side by side (contract §7): each due fire is claimed by
 * one of them, so a trigger due every second fires once per second, never twice, never skipped.
 */
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
