/**
 * Two svc processes on one database and one data directory (the hosted repositories), as two replicas
 * behind a load balancer: a private PostgreSQL schema, or one SQLite file both open. Started at once, so
 * they also race through migrating and bootstrapping as replicas do.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, startTestServer, type TestServer } from './test-server.js';

export interface Replicas {
  first: TestServer;
  second: TestServer;
  /** Stops both (and the sandboxes they started), drops the database and removes the data directory. */
  close(): Promise<void>;
}

export async function startReplicas(options: { adminToken: string; env?: Record<string, string> }): Promise<Replicas> {
  const database = await createTestDatabase();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-replicas-'));
  const shared = { adminToken: options.adminToken, dataDir, env: options.env ?? {}, ...(database.url ? { databaseUrl: database.url } : {}) };
  const [first, second] = await Promise.all([startTestServer(shared), startTestServer(shared)]);
  return {
    first,
    second,
    async close() {
      await second.close();
      await first.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
