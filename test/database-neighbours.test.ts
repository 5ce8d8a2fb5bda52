/**
 * Several svc instances may share one PostgreSQL database, each in a schema of its own (search_path), as the
 * test suite's servers and a team's staging and production do. One starting up must not depend on the
 * others: it used to fail with `schema "…" does not exist` about one start in three while a neighbour
 * dropped its schema, because the migrator's table lookup read every schema by name. On SQLite the
 * neighbours are databases in other data directories.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.js';
import { createTestDatabase, testDatabaseUrl, testDialect, type TestDatabase } from './support/test-server.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-neighbours-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

/** A neighbour that appears, creates a table like svc's and disappears, over and over, until stopped. */
function churnNeighbours(): { stop(): Promise<number> } {
  let running = true;
  const loop = (async () => {
    let count = 0;
    const admin = testDatabaseUrl ? new pg.Client({ connectionString: testDatabaseUrl }) : undefined;
    await admin?.connect();
    while (running) {
      if (admin) {
        const schema = `svc_neighbour_${process.pid}_${count}`;
        await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.projects (id serial primary key, slug text)`);
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      } else {
        const neighbour = await openDatabase({ dataDir: tempDir() });
        await neighbour.close();
        fs.rmSync(dirs.pop()!, { recursive: true, force: true });
      }
      count += 1;
    }
    await admin?.end();
    return count;
  })();
  return {
    async stop() {
      running = false;
      return loop;
    },
  };
}

describe(`svc sharing its ${testDialect} server with other instances`, () => {
  it('starts every time while neighbours create and drop their own databases', async () => {
    const own: TestDatabase = await createTestDatabase();
    const dataDir = tempDir();
    const neighbours = churnNeighbours();
    const failures: string[] = [];
    try {
      for (let start = 0; start < 40; start += 1) {
        try {
          const database = await openDatabase({ dataDir, databaseUrl: own.url });
          const projects = await database.db.selectFrom('projects').select('id').execute();
          expect(projects).toEqual([]);
          await database.close();
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error));
        }
      }
    } finally {
      const churned = await neighbours.stop();
      await own.drop();
      expect(churned).toBeGreaterThan(0);
    }
    expect(failures).toEqual([]);
  });
});
