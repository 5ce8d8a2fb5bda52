/**
 * The wakes that carry "look at your work now" from one replica to the others (background/replica-wakes.ts):
 * over LISTEN/NOTIFY on PostgreSQL, through the shared data directory on SQLite. A wake reaches the other
 * replicas and not its sender's second copy; svc instances in other schemas of the database do not hear it;
 * a listener whose connection is cut connects again and hears the next one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startReplicaWakes, type ReplicaWakes } from '../src/background/replica-wakes.js';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { createTestDatabase, testDatabaseUrl, testDialect, type TestDatabase } from './support/test-server.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Replica {
  wakes: ReplicaWakes;
  heard: string[];
}

async function svcDatabase(): Promise<{ database: TestDatabase; dataDir: string }> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wakes-'));
  cleanups.push(() => database.drop(), () => fs.rmSync(dataDir, { recursive: true, force: true }));
  return { database, dataDir };
}

async function replicaOf(svc: { database: TestDatabase; dataDir: string }): Promise<Replica> {
  const handle: DatabaseHandle = await openDatabase({ dataDir: svc.dataDir, databaseUrl: svc.database.url });
  const heard: string[] = [];
  const wakes = await startReplicaWakes({ driver: handle.driver, dataDir: svc.dataDir, wake: (task) => heard.push(task), onError: () => undefined });
  cleanups.push(() => handle.close(), () => wakes.close());
  return { wakes, heard };
}

async function eventually(what: string, check: () => boolean, withinMs = 5_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe(`waking the other replicas (${testDialect})`, () => {
  it('wakes the task in every replica of the same svc, once each, and in no other svc', async () => {
    const svc = await svcDatabase();
    const [sender, receiver] = [await replicaOf(svc), await replicaOf(svc)];
    const stranger = await replicaOf(await svcDatabase());

    sender.wakes.wakeEverywhere('trigger-scheduler');
    await eventually('the receiver heard it', () => receiver.heard.length > 0);
    // The sender woke itself directly, and does not hear its own message again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sender.heard).toEqual(['trigger-scheduler']);
    expect(receiver.heard).toEqual(['trigger-scheduler']);
    expect(stranger.heard).toEqual([]);
  });

  it('hears wakes again after its connection to PostgreSQL was cut, and from its start when it starts again', async () => {
    const svc = await svcDatabase();
    const [sender, receiver] = [await replicaOf(svc), await replicaOf(svc)];
    if (testDatabaseUrl) {
      const schema = new URL(svc.database.url!).searchParams.get('options')!.replace('-c search_path=', '');
      const admin = new pg.Client({ connectionString: testDatabaseUrl });
      await admin.connect();
      // This svc's listeners are cut, as a PostgreSQL restart or a proxy's idle timeout would.
      const cut = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1', [`svc wakes ${schema}`]);
      await admin.end();
      expect(cut.rowCount).toBe(2);
      await eventually(
        'the receiver heard a wake after the cut',
        () => {
          sender.wakes.wakeEverywhere('trigger-dispatch');
          return receiver.heard.includes('trigger-dispatch');
        },
        8_000,
      );
    }
    const started = await replicaOf(svc);
    sender.wakes.wakeEverywhere('trigger-scheduler');
    await eventually('a replica started later heard it', () => started.heard.includes('trigger-scheduler'));
  });
});
