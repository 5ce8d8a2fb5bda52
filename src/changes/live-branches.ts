import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import { resolveBranchTips } from '../git/branch-tips.js';
import { listBranchTips } from '../git/index.js';
import { type ProjectRepository } from '../repositories/project-repository.js';
import { openProjectRepository } from '../projects/repository-of.js';

/** The project's repository and its branch tips as of now; either is null when it cannot be read. */
export interface LiveBranches {
  repo: ProjectRepository | null;
  /** Branch name → tip sha, from one `for-each-ref`; null when the repository could not be reached. */
  tips: Map<string, string> | null;
}

/**
 * Branch tips for a read. Spec 2, SHA refresh rule 2: when the repository is unreachable (a mirror whose
 * upstream is down, a repository that cannot be opened) the refresh is skipped silently and the caller
 * serves what it has stored, so every failure here becomes "no tips" rather than an error.
 */
export async function readLiveBranches(ctx: Services, project: ProjectRow, options: BranchSelection = {}): Promise<LiveBranches> {
  let repo: ProjectRepository;
  try {
    repo = await openProjectRepository(ctx, project);
  } catch {
    return { repo: null, tips: null };
  }
  try {
    await repo.refresh();
    return { repo, tips: await readTips(repo, options) };
  } catch {
    // A mirror that cannot fetch still holds the objects of everything it fetched before.
    return { repo, tips: null };
  }
}

/**
 * Branch tips for a write (create, merge): failures propagate, so an unreachable upstream is a 502
 * UPSTREAM_UNAVAILABLE rather than a decision taken on stale tips.
 */
export async function readBranchesForWrite(repo: ProjectRepository, options: BranchSelection & { force?: boolean } = {}): Promise<Map<string, string>> {
  await repo.refresh({ force: options.force ?? false });
  return readTips(repo, options);
}

export interface BranchSelection {
  /**
   * The branches the caller needs (one CR's head and base): resolved with one rev-parse. Without it every
   * branch is listed with one for-each-ref, which is what a listing of many CRs wants.
   */
  only?: readonly string[];
}

function readTips(repo: ProjectRepository, options: BranchSelection): Promise<Map<string, string>> {
  return options.only ? resolveBranchTips(repo.path, options.only) : listBranchTips(repo.path);
}
