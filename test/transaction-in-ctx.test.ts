/**
 * An operation that spans domains runs in one transaction carried by ctx (src/db/in-transaction.ts):
 * everything it and the operations it calls write lands together or not at all, and what waits for the
 * commit runs only once it has happened.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../src/db/database.js';
import { afterCommit, inTransaction } from '../src/db/in-transaction.js';
import { createTestDatabase, testDialect, type TestDatabase } from './support/test-server.js';

describe(`a transaction carried in ctx on ${testDialect}`, () => {
  let database: TestDatabase;
  let dataDir: string;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-in-transaction-'));
    handle = await openDatabase({ dataDir, databaseUrl: database.url });
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  type Ctx = { db: DatabaseHandle['db']; log: string[] };
  /** One domain's operation: it opens no transaction of its own, it runs in the caller's when there is one. */
  const addAccount = (ctx: Ctx, id: string) =>
    inTransaction(ctx, async (tx) => {
      await tx.db.insertInto('accounts').values({ id, name: id, created_at: '2026-01-01T00:00:00.000Z' }).execute();
      afterCommit(tx, () => ctx.log.push(`account ${id} announced`));
    });
  const accounts = async (prefix: string) => (await handle.db.selectFrom('accounts').select('id').where('id', 'like', `${prefix}%`).orderBy('id').execute()).map((row) => row.id);

  it('commits the writes of every operation an operation calls together, then runs what waited for the commit', async () => {
    const ctx: Ctx = { db: handle.db, log: [] };
    await inTransaction(ctx, async (tx) => {
      await addAccount(tx, 'together-a');
      await addAccount(tx, 'together-b');
      // Inside the transaction: written, not yet visible outside on PostgreSQL, and nothing announced.
      expect(await tx.db.selectFrom('accounts').select('id').where('id', 'like', 'together-%').execute()).toHaveLength(2);
      expect(ctx.log).toEqual([]);
    });
    expect(await accounts('together-')).toEqual(['together-a', 'together-b']);
    expect(ctx.log).toEqual(['account together-a announced', 'account together-b announced']);
  });

  it('leaves nothing behind and announces nothing when a later step fails', async () => {
    const ctx: Ctx = { db: handle.db, log: [] };
    const failing = inTransaction(ctx, async (tx) => {
      await addAccount(tx, 'undone-a');
      await addAccount(tx, 'undone-a'); // the same id again: the database refuses it
    });
    await expect(failing).rejects.toThrow();
    expect(await accounts('undone-')).toEqual([]);
    expect(ctx.log).toEqual([]);
  });

  it('runs an operation called on its own in a transaction of its own', async () => {
    const ctx: Ctx = { db: handle.db, log: [] };
    await addAccount(ctx, 'alone');
    expect(await accounts('alone')).toEqual(['alone']);
    expect(ctx.log).toEqual(['account alone announced']);
  });
});
