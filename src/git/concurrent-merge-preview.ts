/**
 * previewMerge with its two git processes side by side: `merge-base` (is it a fast-forward, up to date,
 * unrelated?) and `merge-tree --write-tree` (the merged tree or the conflicts) do not depend on each other,
 * so the request waits for the slower one instead of both. The answer is exactly previewMerge's; when
 * merge-base shows the merge-tree run was not needed (fast-forward, up to date, unrelated histories), its
 * result is dropped. Kept apart from merge.ts, which belongs to the git layer's owner.
 */
import { assertFullObjectId } from './arguments.js';
import type { MergePreview } from './merge.js';
import { explainMissingRevisions, mergeBase } from './repository.js';
import { runGit } from './run-git.js';

export async function previewMergeConcurrently(repoPath: string, refs: { baseSha: string; headSha: string }): Promise<MergePreview> {
  const baseSha = assertFullObjectId('base sha', refs.baseSha);
  const headSha = assertFullObjectId('head sha', refs.headSha);
  const [common, merged] = await Promise.allSettled([
    mergeBase(repoPath, baseSha, headSha),
    // Exit 1 is merge-tree's "conflicts" answer; the output is then `<tree>\0<path>\0<path>\0…`.
    runGit(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', baseSha, headSha], { gitDir: repoPath, okExitCodes: [1] }),
  ]);
  if (common.status === 'rejected') throw common.reason;
  const preview: MergePreview = {
    baseSha,
    headSha,
    mergeBase: common.value,
    isUpToDate: false,
    canFastForward: false,
    canMerge: false,
    unrelatedHistories: false,
    conflicts: [],
    treeSha: null,
  };
  // merge-tree refuses unrelated histories (and its failure then means nothing more).
  if (common.value === null) return { ...preview, unrelatedHistories: true };
  if (common.value === headSha) return { ...preview, isUpToDate: true, canMerge: true };
  if (common.value === baseSha) return { ...preview, canFastForward: true, canMerge: true };
  if (merged.status === 'rejected') return explainMissingRevisions(repoPath, [baseSha, headSha], merged.reason);
  const [treeSha = '', ...paths] = merged.value.stdout.toString('utf8').split('\0');
  if (merged.value.exitCode === 0) return { ...preview, canMerge: true, treeSha };
  return { ...preview, conflicts: paths.filter((conflictPath) => conflictPath.length > 0) };
}
