import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from './sqlite-checkpointer.js';

const MiB = 1024 * 1024;

describe('the SQLite checkpointer', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the write-ahead log near its limit under writes that never pause', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-checkpoint-'));
    dirs.push(dir);
    const file = path.join(dir, 'svc.sqlite');
    const db = new SqliteDatabase(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${MiB}`);
    db.exec('CREATE TABLE versions (n INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const checkpointer = startCheckpointer(file, { intervalMs: 10, restartBytes: MiB });
    await checkpointer.ready;
    const insert = db.prepare('INSERT INTO versions (n, body) VALUES (?, ?)');
    const body = 'x'.repeat(20_000);
    let largestLog = 0;
    // 3,200 commits of 20 KB: 64 MB through a log allowed 1 MB, with the writer yielding only between commits.
    for (let n = 1; n <= 3_200; n += 1) {
      insert.run(n, body);
      await nextTurn();
      // The pace of a busy server's commits, with a breath every few: the thread runs beside the writer, and
      // on two cores shared with another test file it was once left unscheduled while 14 MB went by.
      if (n % 4 === 0) await sleep(1);
      if (n % 100 === 0) largestLog = Math.max(largestLog, fs.statSync(`${file}-wal`).size);
    }
    await checkpointer.stop();
    expect(db.prepare('SELECT count(*) AS rows FROM versions').get()).toEqual({ rows: 3_200 });
    db.close();
    expect(largestLog).toBeGreaterThan(0);
    // Unchecked, the log would hold all 64 MB; the bound is a third of what passed through.
    expect(largestLog).toBeLessThan(20 * MiB);
  });
});
