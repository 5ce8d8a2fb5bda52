/**
 * A project's default branch must be a branch its repository has: CRs merge into it, clones check it out
 * and pushes may not move it, so naming a branch that does not exist would leave a project whose base
 * cannot be read (and, on a hosted repository, a default branch any push could create). The one exception
 * is a hosted repository with no branches at all, where the first push creates the default branch.
 */
import { branchMissing, repositoryEmpty } from '../errors.js';
import { listBranchTips } from '../git/repository.js';
import { displayUrl, type ProjectRepository } from './project-repository.js';

/** How many existing branches a refusal names. */
const BRANCHES_SHOWN = 10;

/** Throws CONFLICT when `branch` cannot become the default branch of the project whose repository this is (mirroring `upstream`, or hosted). */
export async function assertDefaultBranchExists(repository: ProjectRepository, upstream: string | null, branch: string): Promise<void> {
  // A mirror is fetched first, so a branch just pushed to the upstream counts.
  await repository.refresh({ force: true });
  const branches = [...(await listBranchTips(repository.path)).keys()].sort();
  if (branches.includes(branch)) return;
  if (repository.kind === 'hosted' && branches.length === 0) return;
  const where = repository.kind === 'hosted' ? "The project's repository" : `The repository ${displayUrl(upstream ?? '')}`;
  if (branches.length === 0) {
    throw repositoryEmpty(`${where} has no branches yet, so "${branch}" cannot be the default branch; push ${branch} to it first.`);
  }
  const shown = branches.slice(0, BRANCHES_SHOWN).join(', ');
  const more = branches.length > BRANCHES_SHOWN ? ` and ${branches.length - BRANCHES_SHOWN} more` : '';
  throw branchMissing(
    `${where} has no branch "${branch}", so it cannot be the default branch. Its branches: ${shown}${more}. ` +
      `Choose one of them, or push ${branch} as a new branch first.`,
  );
}
