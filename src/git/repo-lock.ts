/**
 * A per-repository async mutex: ref-writing operations on one repository run one at a time, in the order
 * they asked, inside this process. Reads never take it. Across processes and replicas the guarantee comes
 * from compare-and-swap ref updates instead; this lock only spares them needless races.
 * Not reentrant: calling withRepoLock for the same repository inside its own `work` waits forever.
 */
import path from 'node:path';

/** The last waiter's "done" signal per repository; a new caller queues behind it. */
const queueTails = new Map<string, Promise<void>>();

export async function withRepoLock<T>(repoPath: string, work: () => Promise<T>): Promise<T> {
  const key = path.resolve(repoPath);
  const previous = queueTails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  queueTails.set(key, done);
  await previous;
  try {
    return await work();
  } finally {
    release();
    // The last one out forgets the repository, so the map does not grow with every repository ever touched.
    if (queueTails.get(key) === done) queueTails.delete(key);
  }
}

/** Whether someone holds or waits for the lock of `repoPath` (for diagnostics and tests). */
export function isRepoLocked(repoPath: string): boolean {
  return queueTails.has(path.resolve(repoPath));
}
