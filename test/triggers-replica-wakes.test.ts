/**
 * A new trigger set wakes the scheduler of every replica, not only of the one that read it. The others
 * used to sleep until their poll (a minute by default): one replica fired every burst alone, and when it
 * stopped, fires waited for the next poll of another. Here the replica that read the set stops at once,
 * and the other, which never listed it, keeps the trigger firing each second.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs } from '../src/git/testing/fixtures.js';
import { createTestDatabase, startTestServer, testDialect, type TestServer } from './support/test-server.js';
import { idleRuntimeCommand, projectWithFiles, until } from './support/trigger-fixtures.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  removeTempDirs();
});

describe(`a new trigger set on two replicas of one ${testDialect} database`, () => {
  it('is fired on time by the replica that did not read it once the one that did has stopped', async () => {
    const database = await createTestDatabase();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wakes-'));
    cleanups.push(() => database.drop(), () => fs.rmSync(dataDir, { recursive: true, force: true }));
    // The poll is a minute: only a wake makes a replica look at a trigger before then.
    const shared = {
      adminToken: 'svc_u_replica_wakes_admin',
      dataDir,
      env: { SVC_MAX_SESSIONS: '1', SVC_RUNTIME_COMMAND: idleRuntimeCommand(), SVC_TRIGGER_SCHEDULER_INTERVAL_MS: '60000' },
      ...(database.url ? { databaseUrl: database.url } : {}),
    };
    const [reader, other] = await Promise.all([startTestServer(shared), startTestServer(shared)]) ;
    cleanups.push(() => other.close());
    let readerOpen = true;
    cleanups.push(async () => {
      if (readerOpen) await reader.close();
    });

    const project = await projectWithFiles(reader, `Wakes ${Date.now()}`, {
      'svc.yaml': 'triggers:\n  - slug: tick\n    type: cron\n    cron: "* * * * * *"\n    prompt: "tick {{ cron.fired_at }}"\n',
    });
    await until('the reader lists it', async () => (await reader.request('GET', `/v1/projects/${project.id}/triggers`)).body.triggers.length, (n) => n === 1);
    await reader.close();
    readerOpen = false;
    const stoppedAt = Date.now();

    const later = await until(
      'two fires after the reader stopped',
      async () =>
        ((await other.request('GET', `/v1/projects/${project.id}/triggers/tick/fires`)).body.fires as Array<{ fired_at: string }>).filter(
          (fire) => Date.parse(fire.fired_at) > stoppedAt,
        ),
      (fires) => fires.length >= 2,
      5_000,
    );
    // One per second, not all at once at the other replica's next poll.
    expect(new Set(later.map((fire) => fire.fired_at.slice(0, 19))).size).toBe(later.length);
  });
});
