/**
 * Typed failures of the git layer. Every one extends GitError, so a caller can catch "git went wrong"
 * with one `instanceof` and the specific cases it can act on with another. The service layer turns
 * them into AppErrors (e.g. RefUpdateRaceError → recompute, PushRejectedError → 409, GitTimeoutError → 502).
 * Classes are decided from exit codes, porcelain output and repository state, never from English stderr.
 */

export interface GitErrorDetails {
  /** The argument list git ran with (secrets never reach argv, so this is safe to log). */
  args: readonly string[];
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

export class GitError extends Error {
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stderr: string;

  constructor(message: string, details: GitErrorDetails) {
    super(message);
    this.name = 'GitError';
    this.args = details.args;
    this.exitCode = details.exitCode;
    this.signal = details.signal;
    this.stderr = details.stderr;
  }

  /** The common shape for "git exited with a status we did not expect". */
  static fromExit(details: GitErrorDetails): GitError {
    const subcommand = details.args.find((arg) => !arg.startsWith('-')) ?? 'git';
    const how = details.exitCode !== null ? `exit status ${details.exitCode}` : `signal ${details.signal}`;
    // git prints its fatal reason last; earlier lines are progress and hints.
    const reason = details.stderr.trim().split('\n').pop() ?? '';
    return new GitError(`git ${subcommand} failed with ${how}${reason ? `: ${reason}` : ''}`, details);
  }
}

/** git ran longer than its deadline and was killed (with its whole process group). */
export class GitTimeoutError extends GitError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, details: GitErrorDetails) {
    super(`git ${details.args.find((arg) => !arg.startsWith('-')) ?? ''} timed out after ${timeoutMs} ms`, details);
    this.name = 'GitTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** git wrote more than the caller allowed on stdout; it was killed rather than buffered without bound. */
export class GitOutputTooLargeError extends GitError {
  readonly maxOutputBytes: number;

  constructor(maxOutputBytes: number, details: GitErrorDetails) {
    super(`git output exceeded ${maxOutputBytes} bytes`, details);
    this.name = 'GitOutputTooLargeError';
    this.maxOutputBytes = maxOutputBytes;
  }
}

/** A branch, ref or object that the operation needs does not exist in the repository. */
export class RefNotFoundError extends GitError {
  readonly missing: readonly string[];

  constructor(missing: readonly string[], details: GitErrorDetails) {
    super(`not found in the repository: ${missing.join(', ')}`, details);
    this.name = 'RefNotFoundError';
    this.missing = missing;
  }
}

/** A compare-and-swap ref update lost: the ref no longer holds the value the change was computed from. */
export class RefUpdateRaceError extends GitError {
  readonly ref: string;
  readonly expectedOldSha: string | null;
  readonly actualSha: string | null;

  constructor(
    update: { ref: string; expectedOldSha: string | null; actualSha: string | null },
    details: GitErrorDetails,
  ) {
    super(
      `${update.ref} moved: expected ${update.expectedOldSha ?? '(absent)'}, found ${update.actualSha ?? '(absent)'}`,
      details,
    );
    this.name = 'RefUpdateRaceError';
    this.ref = update.ref;
    this.expectedOldSha = update.expectedOldSha;
    this.actualSha = update.actualSha;
  }
}

/** The remote refused a (non-force) push of a ref; `reason` is git's porcelain summary, e.g. "non-fast-forward". */
export class PushRejectedError extends GitError {
  readonly ref: string;
  readonly reason: string;

  constructor(rejection: { ref: string; reason: string }, details: GitErrorDetails) {
    super(`push of ${rejection.ref} rejected: ${rejection.reason}`, details);
    this.name = 'PushRejectedError';
    this.ref = rejection.ref;
    this.reason = rejection.reason;
  }
}

/**
 * A caller-supplied value (branch name, path, URL, revision) that would be unsafe or meaningless as a git
 * argument. Raised before git runs; the service maps it to a 400.
 */
export class InvalidGitArgumentError extends Error {
  readonly what: string;
  readonly value: string;

  constructor(what: string, value: string, reason: string) {
    super(`invalid ${what} ${JSON.stringify(value)}: ${reason}`);
    this.name = 'InvalidGitArgumentError';
    this.what = what;
    this.value = value;
  }
}

/** A three-way merge that cannot be made without a person: `conflicts` lists the paths (merge-tree's answer). */
export class MergeConflictError extends GitError {
  readonly conflicts: readonly string[];

  constructor(conflicts: readonly string[], details: GitErrorDetails) {
    super(`the merge conflicts in ${conflicts.length} path(s): ${conflicts.slice(0, 10).join(', ')}`, details);
    this.name = 'MergeConflictError';
    this.conflicts = conflicts;
  }
}

/** The two branches share no commit; svc does not merge unrelated histories (see previewMerge). */
export class UnrelatedHistoriesError extends GitError {
  constructor(details: GitErrorDetails) {
    super('the branches have unrelated histories (no common commit); svc does not merge them', details);
    this.name = 'UnrelatedHistoriesError';
  }
}
