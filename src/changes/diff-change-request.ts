import type { ActorContext } from '../context.js';
import { diffThreeDot, type DiffResult } from '../git/index.js';
import { UpstreamUnavailableError } from '../git/project-repository.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import { diffedCommits, explainMissingCommits } from './compared-commits.js';
import { findChangeRequest } from './find-change-request.js';
import { refreshChangeRequest, type ChangeRequestLocator } from './get-change-request.js';

/**
 * GET /change-requests/:crId/diff. Open and closed CRs: three-dot between the live base and head (what head
 * changed since it left base; commits that landed on base meanwhile are excluded). Merged CRs: three-dot
 * between the captured base_commit_sha and head_commit_sha, so the diff of a merged CR never changes when
 * its branches move on. For a fast-forward that equals the two-dot diff; for a three-way merge it is what
 * the CR contributed, without base's own changes shown reversed (what GitHub shows for a merged PR).
 */
export async function diffChangeRequest(ctx: ActorContext, input: ChangeRequestLocator): Promise<DiffResult> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'read');
  const found = await findChangeRequest(ctx, project, input.crRef);
  const { row, repo, tips } = await refreshChangeRequest(ctx, project, found);
  if (repo === null) throw new UpstreamUnavailableError(`The repository of project ${project.slug} cannot be opened, so the diff of #${row.number} cannot be computed; try again later.`);
  const commits = diffedCommits(row, tips);
  try {
    const diff = await diffThreeDot(repo.path, commits);
    return { files: diff.files, additions: diff.additions, deletions: diff.deletions, patch: diff.patch };
  } catch (error) {
    return explainMissingCommits(row, error);
  }
}
