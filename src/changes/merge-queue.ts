import path from 'node:path';
import { withRepoLock } from '../git/index.js';

/**
 * Merges into one repository run one at a time in this process, so ten merges fired at once are computed
 * in turn on the base the previous one produced, instead of all computing on the same base and nine losing
 * the compare-and-swap. The queue has its own key: compareAndSwapBranch takes the repository lock itself,
 * and that lock is not reentrant. Reads never queue here. Across replicas, compare-and-swap still decides.
 */
export function inMergeQueue<T>(repoPath: string, work: () => Promise<T>): Promise<T> {
  return withRepoLock(path.join(repoPath, 'svc-merge-queue'), work);
}
