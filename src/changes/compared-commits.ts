import { branchMissing } from '../errors.js';
import type { ChangeRequestRow } from './change-request-row.js';
import { gitRefusal } from './git-refusals.js';

export interface ComparedCommits {
  baseSha: string;
  headSha: string;
}

/**
 * The two commits a CR's diff compares (spec 2 "Diff semantics"): for merged CRs the SHAs captured at
 * merge time; otherwise the live branch tips, falling back to the stored SHAs when a branch is gone or the
 * repository cannot be reached (refresh rule 2: serve what is stored).
 */
export function diffedCommits(row: ChangeRequestRow, tips: ReadonlyMap<string, string> | null): ComparedCommits {
  if (row.status === 'merged') return required(row, { baseSha: row.base_commit_sha, headSha: row.head_commit_sha });
  return required(row, {
    baseSha: tips?.get(row.base_ref) ?? row.base_commit_sha,
    headSha: tips?.get(row.head_ref) ?? row.head_commit_sha,
  });
}

/**
 * The commits merging now would join: the live tips of both branches. A branch missing from a
 * repository that could be read is 409, as the merge itself would answer; the stored SHAs stand in
 * only when the repository could not be read at all (refresh rule 2).
 */
export function commitsToMergeNow(row: ChangeRequestRow, tips: ReadonlyMap<string, string> | null): ComparedCommits {
  if (tips === null) return required(row, { baseSha: row.base_commit_sha, headSha: row.head_commit_sha });
  return required(row, { baseSha: tips.get(row.base_ref) ?? null, headSha: tips.get(row.head_ref) ?? null });
}

function required(row: ChangeRequestRow, commits: { baseSha: string | null; headSha: string | null }): ComparedCommits {
  if (commits.headSha === null) throw branchMissing(`The branch ${row.head_ref} of change request #${row.number} does not exist; push it again (git push origin HEAD).`);
  if (commits.baseSha === null) throw branchMissing(`The base branch ${row.base_ref} of change request #${row.number} does not exist in the repository.`);
  return { baseSha: commits.baseSha, headSha: commits.headSha };
}

/** A commit the CR names is gone from the repository (e.g. an upstream rewrote its branch): 409, not 500. */
export function explainMissingCommits(row: ChangeRequestRow, error: unknown): never {
  throw gitRefusal(row, error);
}
