/**
 * Merges without a worktree, the way Gitea, GitLab and GitHub do them: `merge-tree --write-tree` computes
 * the result tree (or the conflicting paths), `commit-tree` records the commit, and `update-ref <new> <old>`
 * lands it only if the branch still holds the commit the merge was computed from.
 * A three-way merge is exactly four processes: merge-base, merge-tree, commit-tree, update-ref.
 */
import { assertFullObjectId, assertFullRefName, branchRef } from './arguments.js';
import {
  GitError,
  InvalidGitArgumentError,
  MergeConflictError,
  RefUpdateRaceError,
  UnrelatedHistoriesError,
  type GitErrorDetails,
} from './errors.js';
import { withRepoLock } from './repo-lock.js';
import { explainMissingRevisions, mergeBase } from './repository.js';
import { firstLine, runGit } from './run-git.js';

export interface MergePreview {
  baseSha: string;
  headSha: string;
  /** The common ancestor; null when the histories are unrelated. */
  mergeBase: string | null;
  /** head is already contained in base: there is nothing to merge. */
  isUpToDate: boolean;
  /** head is strictly ahead of base: the merge moves base to head without a merge commit. */
  canFastForward: boolean;
  /** The merge can be made without a person: no conflicts and related histories. */
  canMerge: boolean;
  /** No common ancestor: svc refuses the merge (see previewMerge). */
  unrelatedHistories: boolean;
  /** Paths that would conflict, in git's order. Empty when the merge is clean. */
  conflicts: string[];
  /**
   * The tree of the clean three-way merge, written to the object store by merge-tree. Null when no merge
   * commit is needed (up to date, fast-forward) or none can be made (conflicts, unrelated histories).
   */
  treeSha: string | null;
}

/**
 * What merging `headSha` into `baseSha` would do, computed on the bare repository.
 *
 * Unrelated histories (no merge base) are reported, not merged: merge_base is null, canMerge is false,
 * unrelatedHistories is true and conflicts is empty. That is GitHub's and Gitea's behaviour (GitHub will not
 * even compare "entirely different commit histories"; Gitea refuses the merge) and git's own default
 * without --allow-unrelated-histories. Such a CR almost always comes from a branch created with
 * `--orphan` or pushed from another repository, and landing a foreign tree on the default branch is not
 * something a click should do; the fix is the spec's conflict recovery (merge base into the branch
 * locally, with --allow-unrelated-histories if it really is wanted, and push).
 */
export async function previewMerge(
  repoPath: string,
  refs: { baseSha: string; headSha: string },
): Promise<MergePreview> {
  const baseSha = assertFullObjectId('base sha', refs.baseSha);
  const headSha = assertFullObjectId('head sha', refs.headSha);
  // merge-base (fast-forward, up to date, unrelated?) and merge-tree (the merged tree or the conflicts) do
  // not depend on each other: run them side by side and wait for the slower one, not for both.
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

export interface Identity {
  name: string;
  email: string;
}

export interface CreateMergeCommitOptions {
  treeSha: string;
  /** First parent is the base (what `git log --first-parent` follows on the default branch), then the head. */
  parents: readonly string[];
  message: string;
  author: Identity;
  /** Defaults to the author: svc's merges are made and recorded by the same service identity. */
  committer?: Identity;
  /** Author and commit date; defaults to now. */
  date?: Date;
}

function assertIdentity(role: string, identity: Identity): void {
  for (const [field, value] of [
    ['name', identity.name],
    ['email', identity.email],
  ] as const) {
    // git silently strips these from identities; refusing keeps the recorded identity the one asked for.
    if (value.trim().length === 0 || /[<>\n\0]/.test(value)) {
      throw new InvalidGitArgumentError(`${role} ${field}`, value, 'must be non-empty, without "<", ">" or newlines');
    }
  }
}

/** Write a commit object for `treeSha` with the given parents and identity; returns its sha. Moves no ref. */
export async function createMergeCommit(repoPath: string, options: CreateMergeCommitOptions): Promise<string> {
  const treeSha = assertFullObjectId('tree sha', options.treeSha);
  const parents = options.parents.map((parent) => assertFullObjectId('parent sha', parent));
  const committer = options.committer ?? options.author;
  assertIdentity('author', options.author);
  assertIdentity('committer', committer);
  if (options.message.trim().length === 0) {
    throw new InvalidGitArgumentError('commit message', options.message, 'must not be empty');
  }
  // Raw git date format, so the stored date is exactly this instant regardless of any locale or zone.
  const date = `@${Math.floor((options.date ?? new Date()).getTime() / 1000)} +0000`;
  const message = options.message.endsWith('\n') ? options.message : `${options.message}\n`;
  try {
    const result = await runGit(['commit-tree', treeSha, ...parents.flatMap((parent) => ['-p', parent])], {
      gitDir: repoPath,
      // The message goes through stdin: no quoting, no length limit, no way to be read as an option.
      stdin: message,
      env: {
        GIT_AUTHOR_NAME: options.author.name,
        GIT_AUTHOR_EMAIL: options.author.email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: committer.name,
        GIT_COMMITTER_EMAIL: committer.email,
        GIT_COMMITTER_DATE: date,
      },
    });
    return firstLine(result);
  } catch (error) {
    return explainMissingRevisions(repoPath, [treeSha, ...parents], error);
  }
}

export interface CompareAndSwapOptions {
  /** Full ref name, e.g. `refs/heads/main` (see branchRef). */
  ref: string;
  newSha: string;
  /** The value the ref must still hold; null means the ref must not exist yet. */
  expectedOldSha: string | null;
  /** Recorded in the ref's reflog. */
  reason?: string;
}

/**
 * Move `ref` to `newSha` only if it still holds `expectedOldSha` (git checks it under the ref's lock file).
 * Throws RefUpdateRaceError when the ref moved in the meantime, leaving it untouched.
 */
export async function compareAndSwapRef(repoPath: string, options: CompareAndSwapOptions): Promise<void> {
  const ref = assertFullRefName(options.ref);
  const newSha = assertFullObjectId('new sha', options.newSha);
  const expected = options.expectedOldSha === null ? null : assertFullObjectId('old sha', options.expectedOldSha);
  const reason = options.reason === undefined ? [] : ['-m', options.reason.replace(/\n/g, ' ')];
  // An empty old value is update-ref's "must not exist"; it is hash-length agnostic unlike forty zeros.
  const args = ['update-ref', '--no-deref', ...reason, ref, newSha, expected ?? ''];
  try {
    await runGit(args, { gitDir: repoPath });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    // Decide from the ref's state rather than update-ref's message: if it no longer holds the expected
    // value, we lost a race; otherwise the failure is something else and is reported as such.
    const actual = await readRef(repoPath, ref);
    if (actual !== expected) throw new RefUpdateRaceError({ ref, expectedOldSha: expected, actualSha: actual }, error);
    return explainMissingRevisions(repoPath, [newSha], error);
  }
}

async function readRef(repoPath: string, ref: string): Promise<string | null> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', ref], { gitDir: repoPath, okExitCodes: [1] });
  return result.exitCode === 0 ? firstLine(result) : null;
}

export interface PrepareMergeOptions {
  baseSha: string;
  headSha: string;
  message: string;
  author: Identity;
  date?: Date;
  /** A preview already computed for the same two commits (e.g. shown to the user a moment ago); saves two processes. */
  preview?: MergePreview;
}

export type MergeKind = 'fast-forward' | 'merge-commit' | 'up-to-date';

export interface PreparedMerge {
  kind: MergeKind;
  /** Where the base branch should point after the merge: head for a fast-forward, the new merge commit, or base. */
  commitSha: string;
  preview: MergePreview;
}

function noProcess(args: string[]): GitErrorDetails {
  return { args, exitCode: null, signal: null, stderr: '' };
}

/**
 * Compute the merge of head into base and write the merge commit if one is needed, without moving any
 * ref: the hosted path lands it with compareAndSwapRef, the mirror path with a non-force push.
 * Throws MergeConflictError or UnrelatedHistoriesError when there is nothing svc may commit.
 */
export async function prepareMerge(repoPath: string, options: PrepareMergeOptions): Promise<PreparedMerge> {
  const reusable =
    options.preview && options.preview.baseSha === options.baseSha && options.preview.headSha === options.headSha;
  const preview = reusable && options.preview ? options.preview : await previewMerge(repoPath, options);
  if (preview.unrelatedHistories) throw new UnrelatedHistoriesError(noProcess(['merge-base']));
  if (preview.conflicts.length > 0) throw new MergeConflictError(preview.conflicts, noProcess(['merge-tree']));
  if (preview.isUpToDate) return { kind: 'up-to-date', commitSha: preview.baseSha, preview };
  if (preview.canFastForward) return { kind: 'fast-forward', commitSha: preview.headSha, preview };
  if (preview.treeSha === null) throw new GitError('merge-tree produced no tree for a clean merge', noProcess(['merge-tree']));
  const commitSha = await createMergeCommit(repoPath, {
    treeSha: preview.treeSha,
    parents: [preview.baseSha, preview.headSha],
    message: options.message,
    author: options.author,
    date: options.date,
  });
  return { kind: 'merge-commit', commitSha, preview };
}

export interface MergeIntoBranchOptions extends PrepareMergeOptions {
  /** The base branch's short name, e.g. `main`; it must currently point at `baseSha`. */
  branch: string;
}

/**
 * Merge head into `branch` of a hosted repository: prepare the merge and land it by compare-and-swap from
 * `baseSha`, under the repository lock. A moved base throws RefUpdateRaceError and changes nothing; the
 * caller re-reads the tips and decides again (never force). Do not call it while holding withRepoLock for
 * the same repository (the lock is not reentrant).
 */
export async function mergeIntoBranch(repoPath: string, options: MergeIntoBranchOptions): Promise<PreparedMerge> {
  const ref = branchRef(options.branch);
  return withRepoLock(repoPath, async () => {
    const merge = await prepareMerge(repoPath, options);
    if (merge.kind !== 'up-to-date') {
      await compareAndSwapRef(repoPath, { ref, newSha: merge.commitSha, expectedOldSha: options.baseSha });
    }
    return merge;
  });
}
