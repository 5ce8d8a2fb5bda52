/**
 * The environment variables a project's sessions expect: the manifest's `env` list on the default branch
 * (spec 3: a webhook's secret is declared there "so it appears on the environment-variables screen"). Their
 * values are project secrets; the settings page shows which are set.
 */
import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import { readFilesAtRef, resolveRef } from '../git/index.js';
import { MANIFEST_FILENAMES, readManifestFromTree, type NormalizedEnvEntry } from '../manifest/index.js';
import { openProjectRepository } from '../projects/repository-of.js';

export interface ExpectedEnvironment {
  /** The manifest read (`svc.yaml` or `svc.toml`), or null when the default branch has none. */
  manifestPath: string | null;
  entries: NormalizedEnvEntry[];
}

/** Read from the project's repository as it is (a mirror is not fetched for it); empty when the branch cannot be read. */
export async function expectedEnvironment(services: Services, project: ProjectRow): Promise<ExpectedEnvironment> {
  try {
    const repo = await openProjectRepository(services, project);
    const tip = await resolveRef(repo.path, project.default_branch);
    if (!tip) return { manifestPath: null, entries: [] };
    const files = await readFilesAtRef(repo.path, tip, MANIFEST_FILENAMES);
    const manifest = await readManifestFromTree(async (filename) => files.get(filename)?.toString('utf8') ?? null);
    return { manifestPath: manifest?.filename ?? null, entries: manifest?.manifest.env ?? [] };
  } catch {
    // A mirror never cloned whose upstream is unreachable: the page shows the secrets without the expectations.
    return { manifestPath: null, entries: [] };
  }
}
