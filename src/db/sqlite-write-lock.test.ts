import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from './database.js';

const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');

/** Another writer on the same file (a second `--workers` process): holds the write lock for `holdMs`, then commits. */
function holdWriteLock(file: string, holdMs: number): { locked: Promise<void>; exited: Promise<number | null> } {
  const source = `
    const Database = require(${JSON.stringify(driverPath)});
    const db = new Database(${JSON.stringify(file)});
    db.pragma('busy_timeout = 5000');
    db.exec('begin immediate');
    db.prepare("insert into accounts (id, name, created_at) values ('other', 'other', '2026-01-01T00:00:00.000Z')").run();
    process.stdout.write('locked\\n');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs});
    db.exec('commit');
    db.close();`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && resolve());
    child.once('exit', (code) => reject(new Error(`the other writer exited with ${code} before taking the lock`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { locked, exited };
}

describe('SQLite write transactions beside another writer', () => {
  let dataDir: string;
  let handle: DatabaseHandle;

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-write-lock-'));
    handle = await openDatabase({ dataDir });
  });
  afterEach(async () => {
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a transaction that reads and then writes waits for the other writer instead of failing with "database is locked"', async () => {
    const other = holdWriteLock(path.join(dataDir, 'svc.sqlite'), 300);
    await other.locked;
    // As a webhook fire does: read (the queue), then insert.
    const seen = await handle.transactions.run(async (trx) => {
      const { rows } = await sql<{ count: number }>`select count(*) as count from accounts`.execute(trx);
      await trx.insertInto('accounts').values({ id: 'mine', name: 'mine', created_at: '2026-01-01T00:00:00.000Z' }).execute();
      return Number(rows[0]?.count);
    });
    expect(await other.exited).toBe(0);
    // It began after the other writer committed, so it saw that writer's row.
    expect(seen).toBe(1);
    const ids = (await handle.db.selectFrom('accounts').select('id').orderBy('id').execute()).map((row) => row.id);
    expect(ids).toEqual(['mine', 'other']);
  });
});
