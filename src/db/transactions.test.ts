import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from './database.js';
import { GroupCommit } from './transactions.js';

describe('GroupCommit on SQLite', () => {
  let dataDir: string;
  let handle: DatabaseHandle;
  let group: GroupCommit;

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-group-commit-'));
    handle = await openDatabase({ dataDir });
    group = new GroupCommit(handle.db);
  });
  afterEach(async () => {
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const addAccount = (id: string) => group.run(async (trx) => {
    await trx.insertInto('accounts').values({ id, name: id, created_at: '2026-01-01T00:00:00.000Z' }).execute();
    return id;
  });
  const accountIds = async () => (await handle.db.selectFrom('accounts').select('id').orderBy('id').execute()).map((row) => row.id);

  it('commits every call of a burst and answers each with its own result', async () => {
    const ids = Array.from({ length: 150 }, (_, index) => `burst-${String(index).padStart(3, '0')}`);
    expect(await Promise.all(ids.map(addAccount))).toEqual(ids);
    expect(await accountIds()).toEqual(ids);
  });

  it('runs the calls of a group in the order they arrived, each seeing the writes before it', async () => {
    const first = addAccount('ordered');
    const second = group.run(async (trx) => (await trx.selectFrom('accounts').select('name').where('id', '=', 'ordered').executeTakeFirst())?.name);
    expect(await Promise.all([first, second])).toEqual(['ordered', 'ordered']);
  });

  it('leaves no write of a call that throws, and keeps the writes of the calls around it', async () => {
    const failing = group.run(async (trx) => {
      await trx.insertInto('accounts').values({ id: 'half-done', name: 'half', created_at: '2026-01-01T00:00:00.000Z' }).execute();
      throw new Error('this publish is refused');
    });
    const outcomes = await Promise.allSettled([addAccount('before'), failing, addAccount('after')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes[1]).toMatchObject({ reason: { message: 'this publish is refused' } });
    expect(await accountIds()).toEqual(['after', 'before']);
  });

  it('fails only the call the database refuses, commits the rest of its group, and stays usable', async () => {
    await addAccount('taken');
    // The second call breaks the primary key, so the group rolls back and both run again alone.
    const outcomes = await Promise.allSettled([addAccount('fresh'), addAccount('taken')]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 'fresh' });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('UNIQUE constraint failed') } });
    expect(await addAccount('later')).toBe('later');
    expect(await accountIds()).toEqual(['fresh', 'later', 'taken']);
  });
});
