/**
 * Cron fires that fall due together at an account with free slots (src/triggers/scheduler.ts): the first take
 * the free slots and start their sessions; the rest are recorded queued behind them, each with the reason it
 * would get arriving alone, and start oldest first as slots free.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, until } from './support/trigger-fixtures.js';

let svc: TestServer;

beforeAll(async () => {
  svc = await startTestServer({ env: { SVC_MAX_SESSIONS: '2', SVC_RUNTIME_COMMAND: idleRuntimeCommand(), SVC_TRIGGER_SCHEDULER_INTERVAL_MS: '60000' } });
});
afterAll(async () => {
  await svc.close();
  removeTempDirs();
});

const SLUGS = ['one', 'two', 'three', 'four', 'five', 'six'];
// A run_at already past when the manifest is read fires once, at once: the six fall due at the same instant.
const MANIFEST = `triggers:\n${SLUGS.map((slug) => `  - slug: ${slug}\n    type: cron\n    run_at: "2020-01-01T00:00:00Z"\n    prompt: "${slug}"\n`).join('')}`;

interface Fire {
  status: string;
  reason: string | null;
  session_id: string | null;
}

describe(`cron fires due together at free slots (${testDialect})`, () => {
  it('starts as many as the account has free slots and records the rest queued behind them, each with its own reason', async () => {
    const project = await projectWithFiles(svc, 'Cron burst', { 'svc.yaml': MANIFEST });
    const firesOf = async (slug: string) => (await svc.request('GET', `/v1/projects/${project.id}/triggers/${slug}/fires`)).body.fires as Fire[];
    const fires = await until(
      'each trigger has fired',
      async () => (await Promise.all(SLUGS.map(firesOf))).flat(),
      (list) => list.length === SLUGS.length,
    );

    const started = fires.filter((fire) => fire.status === 'fired');
    expect(started).toHaveLength(2);
    for (const fire of started) {
      expect(fire.reason).toBeNull();
      // The fire names its session as it is recorded; the session itself is created once the burst is committed.
      const session = await until(
        'the fire has started its session',
        () => svc.request('GET', `/v1/projects/${project.id}/sessions/${fire.session_id}`),
        (response) => response.status !== 404,
      );
      expect(session.status).toBe(200);
      expect(['provisioning', 'running']).toContain(session.body.session.status);
    }
    const queued = fires.filter((fire) => fire.status === 'queued');
    expect(queued).toHaveLength(4);
    expect(new Set(queued.map((fire) => fire.session_id)).size).toBe(4);
    expect(queued.map((fire) => fire.reason).sort()).toEqual(
      [
        'the account has 2 sessions provisioning or running, its limit (SVC_MAX_SESSIONS); the fire starts when one stops',
        '1 earlier fire waits for a session slot of this account; this one starts after them',
        '2 earlier fires wait for a session slot of this account; this one starts after them',
        '3 earlier fires wait for a session slot of this account; this one starts after them',
      ].sort(),
    );

    // A stopped session frees its slot: the oldest queued fire starts, the others still wait.
    expect((await svc.request('POST', `/v1/projects/${project.id}/sessions/${started[0]!.session_id}/stop`)).status).toBe(200);
    const after = await until(
      'a queued fire has started',
      async () => (await Promise.all(SLUGS.map(firesOf))).flat(),
      (list) => list.filter((fire) => fire.status === 'fired').length === 3,
    );
    expect(after.filter((fire) => fire.status === 'queued')).toHaveLength(3);
  });
});
