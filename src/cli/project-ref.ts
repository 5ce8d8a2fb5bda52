import { isUuid } from '../ids.js';
import type { ApiClient } from './api-client.js';
import { CliError, type CliDeps } from './deps.js';
import { readLinkedProject } from './link-file.js';

/**
 * The project a command acts on: the flag (id or slug), else SVC_PROJECT_ID (inside a sandbox), else
 * the project linked to the working directory with `svc link`.
 */
export async function resolveProjectRef(client: ApiClient, flag: string | undefined, deps: Pick<CliDeps, 'env' | 'cwd'>): Promise<string> {
  const ref = flag ?? deps.env.SVC_PROJECT_ID ?? readLinkedProject(deps.cwd);
  if (!ref) throw new CliError('Which project? Pass --project <id or slug>, set SVC_PROJECT_ID, or run svc link <project> in your repository.', 2);
  if (isUuid(ref)) return ref;
  const { body } = await client.request<{ projects: Array<{ id: string; slug: string }> }>('GET', '/v1/projects');
  const match = body.projects.find((p) => p.slug === ref);
  if (!match) throw new CliError(`No project with slug ${JSON.stringify(ref)} is visible to this token; svc project ls lists them.`);
  return match.id;
}
