/**
 * The one place where the git door's typed errors about a change request become what the API answers:
 * each refusal of git (conflicting branches, unrelated histories, a push the repository refused, commits
 * that are gone, output too large) gets its catalog code and a sentence saying what to do. Anything else
 * is returned unchanged, for the caller to throw.
 */
import { AppError, commitsMissing, mergeConflict, pushRefused, unrelatedHistories } from '../errors.js';
import { GitOutputTooLargeError, MergeConflictError, PushRejectedError, RefNotFoundError, UnrelatedHistoriesError } from '../git/index.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { formatBytes } from './format-bytes.js';

export function gitRefusal(row: ChangeRequestRow, error: unknown): unknown {
  if (error instanceof MergeConflictError) {
    const count = error.conflicts.length;
    return mergeConflict(
      `Change request #${row.number} conflicts with ${row.base_ref} in ${count} file${count === 1 ? '' : 's'}; resolve the conflicts before merging: ` +
        `merge ${row.base_ref} into ${row.head_ref} locally, fix the files, commit and push, then check svc cr show ${row.number}.`,
      error.conflicts,
    );
  }
  if (error instanceof UnrelatedHistoriesError) {
    return unrelatedHistories(
      `${row.head_ref} and ${row.base_ref} have unrelated histories (no common commit), so svc will not merge them; ` +
        `merge ${row.base_ref} into ${row.head_ref} locally (git merge --allow-unrelated-histories) and push, if that is really wanted.`,
    );
  }
  if (error instanceof PushRejectedError) {
    return pushRefused(`The repository refused to move ${row.base_ref} (${error.reason}); svc never forces a branch. Check the upstream's branch protection, then try again.`);
  }
  if (error instanceof RefNotFoundError) {
    return commitsMissing(`Change request #${row.number} names commits that are no longer in the repository (${error.missing.join(', ')}); the branch was probably rewritten upstream.`);
  }
  if (error instanceof GitOutputTooLargeError) {
    return new AppError(
      'DIFF_TOO_LARGE',
      `Change request #${row.number} changes so many files that even their list is over ${formatBytes(error.maxOutputBytes)}; ` +
        `fetch ${row.head_ref} and ${row.base_ref} and compare them with git diff --stat instead.`,
    );
  }
  return error;
}
