import { AppError, MAX_ISSUES, type Issue } from '../errors.js';

/**
 * The merge gate's refusal (spec 2 "Merge mechanics"): 422 MANIFEST_INVALID with the issues, capped like
 * every issue list (contract §2). The message names the first problem so a CLI user sees it without
 * reading the JSON.
 */
export function manifestInvalidError(filename: string, issues: readonly Issue[]): AppError {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more; see issues)` : '';
  const where = first?.path ? `${first.path}: ` : '';
  const message = first
    ? `${filename} on the head branch is invalid, so the merge did not run: ${where}${first.message}${more}`
    : `${filename} on the head branch is invalid, so the merge did not run.`;
  return new AppError('MANIFEST_INVALID', message, { issues: issues.slice(0, MAX_ISSUES) });
}
