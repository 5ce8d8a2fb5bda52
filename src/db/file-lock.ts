import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface FileLockOptions {
  /** Give up after this long. */
  timeoutMs?: number;
  /** A lock file older than this was left by a process that died while holding it. */
  staleMs?: number;
}

/**
 * Runs `fn` while holding an exclusive lock file (created with O_EXCL), so that several svc processes
 * sharing one SQLite file do not migrate it at the same time. SQLite itself offers no lock that spans
 * the multi-statement transactions Kysely's migrator runs.
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const staleMs = options.staleMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  let handle: number | undefined;
  while (handle === undefined) {
    try {
      handle = fs.openSync(lockPath, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = lockAge(lockPath);
      if (age !== null && age > staleMs) {
        fs.rmSync(lockPath, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${lockPath}; if no other svc process is starting, delete it`);
      await sleep(25);
    }
  }
  try {
    fs.writeSync(handle, `${process.pid}\n`);
    return await fn();
  } finally {
    fs.closeSync(handle);
    fs.rmSync(lockPath, { force: true });
  }
}

function lockAge(lockPath: string): number | null {
  try {
    return Date.now() - fs.statSync(lockPath).mtimeMs;
  } catch {
    return null;
  }
}
