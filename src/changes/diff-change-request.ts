import type { Config } from '../config.js';
import type { ActorContext } from '../context.js';
import { diffThreeDotWithinLimits, type DiffFile, type LimitedDiffResult, type OmittedFile } from '../git/index.js';
import { UpstreamUnavailableError } from '../repositories/project-repository.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import { diffedCommits } from './compared-commits.js';
import { formatBytes } from './format-bytes.js';
import { gitRefusal } from './git-refusals.js';
import { findChangeRequest } from './find-change-request.js';
import { refreshChangeRequest, type ChangeRequestLocator } from './get-change-request.js';

/** A file of the diff; `note` says why its patch is not in `patch`, only when it is not. */
export type ChangeRequestDiffFile = DiffFile & { note?: string };

export interface ChangeRequestDiff {
  /** Every changed file, with its counts, even when the patch is truncated. */
  files: ChangeRequestDiffFile[];
  additions: number;
  deletions: number;
  /** The unified diff of the files shown; files with a `note` are left out of it. */
  patch: string;
  /** True when some file's patch is left out (too large to show). */
  truncated: boolean;
}

/**
 * GET /change-requests/:crId/diff. Open and closed CRs: three-dot between the live base and head (what head
 * changed since it left base; commits that landed on base meanwhile are excluded). Merged CRs: three-dot
 * between the captured base_commit_sha and head_commit_sha, so the diff of a merged CR never changes when
 * its branches move on. For a fast-forward that equals the two-dot diff; for a three-way merge it is what
 * the CR contributed, without base's own changes shown reversed (what GitHub shows for a merged PR).
 *
 * A diff too large to show is truncated rather than refused: the file list and counts stay complete, and
 * each file whose patch is left out says why (SVC_DIFF_MAX_FILE_BYTES, SVC_DIFF_MAX_BYTES).
 */
export async function diffChangeRequest(ctx: ActorContext, input: ChangeRequestLocator): Promise<ChangeRequestDiff> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'read');
  const found = await findChangeRequest(ctx, project, input.crRef);
  const { row, repo, tips } = await refreshChangeRequest(ctx, project, found);
  if (repo === null) throw new UpstreamUnavailableError(`The repository of project ${project.slug} cannot be opened, so the diff of #${row.number} cannot be computed; try again later.`);
  const commits = diffedCommits(row, tips);
  let diff: LimitedDiffResult;
  try {
    diff = await diffThreeDotWithinLimits(repo.path, { ...commits, limits: { maxFileBytes: ctx.config.diffMaxFileBytes, maxBytes: ctx.config.diffMaxBytes } });
  } catch (error) {
    throw gitRefusal(row, error);
  }
  const notes = new Map(diff.omitted.map((omitted) => [omitted.index, omissionNote(omitted, ctx.config)]));
  return {
    files: diff.files.map((file, index) => {
      const note = notes.get(index);
      return note === undefined ? file : { ...file, note };
    }),
    additions: diff.additions,
    deletions: diff.deletions,
    patch: diff.patch,
    truncated: diff.omitted.length > 0,
  };
}

function omissionNote(omitted: OmittedFile, config: Pick<Config, 'diffMaxFileBytes' | 'diffMaxBytes'>): string {
  return omitted.reason === 'file-too-large'
    ? `Large diff not shown: this file's diff is ${formatBytes(omitted.bytes ?? 0)}, over the limit of ${formatBytes(config.diffMaxFileBytes)} per file (SVC_DIFF_MAX_FILE_BYTES).`
    : `Diff not shown: the diff reached its limit of ${formatBytes(config.diffMaxBytes)} (SVC_DIFF_MAX_BYTES) before this file.`;
}

/**
 * The bare patch (`Accept: text/x-diff`) of a truncated diff starts with a note naming the files left out.
 * git apply and patch skip text before the first `diff --git`, so the patch of the files shown still applies.
 */
export function patchText(diff: ChangeRequestDiff): string {
  if (!diff.truncated) return diff.patch;
  const left = diff.files.filter((file) => file.note !== undefined);
  const lines = [
    `# svc: this diff is truncated: ${left.length} of ${diff.files.length} changed files are not shown.`,
    ...left.map((file) => `#   ${file.path}: ${file.note}`),
    '# Fetch the branches and run git diff to see them.',
    '',
  ];
  return lines.join('\n') + diff.patch;
}


