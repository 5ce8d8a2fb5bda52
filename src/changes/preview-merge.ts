import type { ActorContext } from '../context.js';
import { previewMerge } from '../git/merge.js';
import type { MergePreview } from '../git/index.js';
import { UpstreamUnavailableError } from '../repositories/project-repository.js';
import { loadProjectForChangeRequests } from './change-request-access.js';
import { commitsToMergeNow, explainMissingCommits } from './compared-commits.js';
import { findChangeRequest } from './find-change-request.js';
import { refreshChangeRequest, type ChangeRequestLocator } from './get-change-request.js';

/**
 * GET /change-requests/:crId/merge-preview: what merging the CR now would do, computed on the bare
 * repository with merge-tree (nothing is written but objects). merge_base is null for unrelated histories,
 * which svc does not merge (can_merge false, no conflicts listed).
 */
export async function previewChangeRequestMerge(ctx: ActorContext, input: ChangeRequestLocator): Promise<MergePreview> {
  const project = await loadProjectForChangeRequests(ctx, input.projectId, 'read');
  const found = await findChangeRequest(ctx, project, input.crRef);
  const { row, repo, tips } = await refreshChangeRequest(ctx, project, found);
  if (repo === null) throw new UpstreamUnavailableError(`The repository of project ${project.slug} cannot be opened, so #${row.number} cannot be previewed; try again later.`);
  try {
    return await previewMerge(repo.path, commitsToMergeNow(row, tips));
  } catch (error) {
    return explainMissingCommits(row, error);
  }
}
