import type { Config } from '../config.js';
import type { ProjectRow } from '../accounts/access.js';
import { readBool } from '../db/values.js';

export function cloneUrl(project: Pick<ProjectRow, 'id' | 'repo_url'>, config: Pick<Config, 'baseUrl'>): string {
  return project.repo_url ?? `${config.baseUrl}/git/${project.id}.git`;
}

/** The fields of a project that clients see. */
export function presentProject(project: ProjectRow, config: Pick<Config, 'baseUrl'>) {
  return {
    id: project.id,
    name: project.name,
    slug: project.slug,
    default_branch: project.default_branch,
    repo_url: project.repo_url,
    repository: project.repo_url ? ('mirror' as const) : ('hosted' as const),
    clone_url: cloneUrl(project, config),
    created_by: project.created_by,
    bundled_model_access: readBool(project.bundled_model_access),
    created_at: project.created_at,
    updated_at: project.updated_at,
  };
}
