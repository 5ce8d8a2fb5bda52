/**
 * Background work shared by replicas: a `one-replica` task runs in one process at a time, the one
 * holding its lease in the shared database, and another replica takes over when that one stops; an
 * `every-replica` task runs in each.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimLease } from '../src/background/leases.js';
import type { BackgroundTask } from '../src/background/task-runner.js';
import { createTestDatabase, startTestServer, testDialect, type TestDatabase, type TestServer } from './support/test-server.js';

interface Probe {
  task: BackgroundTask;
  runs: string[];
}

const PROBE_INTERVAL_MS = 100;
/**
 * A lease lasts three intervals unless the task says otherwise (task-runner.ts). The leader renews it on each run,
 * so a stall of its event loop longer than the lease less an interval hands the task to the standby, rightly: with a
 * 75 ms lease, and later a 300 ms one, the loaded CI machine stalled that long, and the test's "the standby never
 * ran it" failed. A leader that stops gives its lease up, so the standby still takes over at its next run.
 */
const PROBE_LEASE_MS = 10_000;

function probe(name: string, runsOn: BackgroundTask['runsOn']): Probe {
  const runs: string[] = [];
  return { runs, task: { name, runsOn, intervalMs: PROBE_INTERVAL_MS, leaseMs: PROBE_LEASE_MS, run: async ({ holder }) => void runs.push(holder) } };
}

/** Resolves once `condition` holds; the runner's own intervals decide how soon. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe(`background tasks on two replicas of one ${testDialect} database`, () => {
  let database: TestDatabase;
  let dataDir: string;
  let first: TestServer;
  let second: TestServer;
  const closed = new Set<TestServer>();
  const oneFirst = probe('probe-one-replica', 'one-replica');
  const oneSecond = probe('probe-one-replica', 'one-replica');
  const everyFirst = probe('probe-every-replica', 'every-replica');
  const everySecond = probe('probe-every-replica', 'every-replica');

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-tasks-'));
    const shared = { adminToken: 'svc_u_tasks_admin', dataDir, ...(database.url ? { databaseUrl: database.url } : {}) };
    first = await startTestServer({ ...shared, extraTasks: [oneFirst.task, everyFirst.task] });
    second = await startTestServer({ ...shared, extraTasks: [oneSecond.task, everySecond.task] });
  });
  afterAll(async () => {
    await Promise.all([first, second].filter((server) => !closed.has(server)).map((server) => server.server.close()));
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs a one-replica task in one replica only, and another takes it over when that one stops', async () => {
    await eventually(() => oneFirst.runs.length + oneSecond.runs.length >= 8, 'the one-replica probe ran 8 times');
    // Whoever took the lease first keeps it while it runs: the other replica never ran the task.
    const [leader, standby, leaderServer] = oneFirst.runs.length > 0 ? [oneFirst, oneSecond, first] : [oneSecond, oneFirst, second];
    expect(standby.runs).toEqual([]);
    expect(new Set(leader.runs).size).toBe(1);
    expect(leader.runs[0]).toBe(leaderServer.server.tasks.holder);

    await leaderServer.server.close();
    closed.add(leaderServer);
    const stoppedAt = leader.runs.length;
    await eventually(() => standby.runs.length >= 3, 'the standby took the task over');
    expect(leader.runs.length).toBe(stoppedAt);
  });

  it('runs an every-replica task in each replica', async () => {
    await eventually(() => everyFirst.runs.length > 0 && everySecond.runs.length > 0, 'both replicas ran the every-replica probe');
    expect(new Set([...everyFirst.runs, ...everySecond.runs]).size).toBe(2);
  });

  it('hands the lease of a replica that stopped renewing without giving it up to another once it runs out, not before', async () => {
    const db = (closed.has(first) ? second : first).server.services.db;
    const at = (ms: number) => new Date(Date.parse('2026-12-01T00:00:00.000Z') + ms);
    const claim = (holder: string, ms: number) => claimLease(db, { name: 'probe-lease-expiry', holder, ttlMs: 1_000, now: at(ms) });
    expect(await claim('killed', 0)).toBe(true);
    expect(await claim('standby', 999)).toBe(false);
    expect(await claim('killed', 500)).toBe(true);
    expect(await claim('standby', 1_499)).toBe(false);
    expect(await claim('standby', 1_500)).toBe(true);
    expect(await claim('killed', 1_600)).toBe(false);
    expect(await claim('standby', 2_000)).toBe(true);
  });
});
