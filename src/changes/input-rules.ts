import { validationFailed, type Issue } from '../errors.js';
import { branchNameProblem } from '../git/index.js';

export const MAX_TITLE_LENGTH = 256;
export const MAX_DESCRIPTION_LENGTH = 65_536;
export const MAX_FEEDBACK_LENGTH = 65_536;
/**
 * Feedback a CR keeps: every read of the CR carries all of it (metadata.requested_changes), so neither the
 * number of entries nor their total size may grow without bound.
 */
export const MAX_FEEDBACK_ENTRIES = 1_000;
export const MAX_FEEDBACK_TOTAL_LENGTH = 4 * 1_048_576;

/** Problems with a title, or none; the title is compared after trimming, as it is stored. */
export function titleIssues(title: string): Issue[] {
  const trimmed = title.trim();
  if (trimmed.length === 0) return [{ path: '/title', message: 'must not be empty; say what the change does' }];
  if (trimmed.length > MAX_TITLE_LENGTH) return [{ path: '/title', message: `must be at most ${MAX_TITLE_LENGTH} characters (got ${trimmed.length}); put the details in the description` }];
  return [];
}

export function descriptionIssues(description: string | undefined): Issue[] {
  if (description !== undefined && description.length > MAX_DESCRIPTION_LENGTH) {
    return [{ path: '/description', message: `must be at most ${MAX_DESCRIPTION_LENGTH} characters (got ${description.length})` }];
  }
  return [];
}

/** `refs/heads/feature` and `feature` name the same branch; CRs store the short name. */
export function shortBranchName(name: string): string {
  return name.startsWith('refs/heads/') ? name.slice('refs/heads/'.length) : name;
}

export function branchIssues(field: 'head_ref' | 'base_ref', name: string): Issue[] {
  const problem = branchNameProblem(name);
  return problem ? [{ path: `/${field}`, message: `is not a valid git branch name: it ${problem}` }] : [];
}

/** Throws VALIDATION_FAILED listing every issue, when there is any. */
export function assertNoIssues(issues: Issue[]): void {
  if (issues.length > 0) throw validationFailed(issues);
}
