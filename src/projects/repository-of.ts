/**
 * A project's repository, opened from its row: what src/repositories/ needs of the project (id, default
 * branch, upstream) and, for a mirror, the credentials it reads from the project's secrets and whether its
 * creator was an administrator (see repositories/upstream-address.ts), read only when the repository is opened.
 */
import type { ProjectRow } from '../accounts/access.js';
import { readSecretValue } from '../accounts/secrets.js';
import type { Services } from '../context.js';
import { readBool } from '../db/values.js';
import {
  GIT_TOKEN_SECRET,
  GIT_USERNAME_SECRET,
  openRepository,
  provisionRepository,
  removeRepository,
  type OpenProjectRepositoryOptions,
  type ProjectRepository,
  type RepositorySource,
  type UpstreamAccess,
} from '../repositories/project-repository.js';

type ProjectOfRepository = Pick<ProjectRow, 'id' | 'default_branch' | 'repo_url' | 'created_by'>;

function sourceOf(project: ProjectOfRepository): RepositorySource {
  return { id: project.id, defaultBranch: project.default_branch, upstream: project.repo_url };
}

/**
 * The project's repository, ready to read: a hosted repository is created if it is missing (projects made
 * before repositories were provisioned), a mirror is cloned on first open. Opening does not fetch; call
 * refresh(). Throws UpstreamUnavailableError when a mirror has never been cloned and its upstream cannot be
 * reached.
 */
export function openProjectRepository(services: Services, project: ProjectOfRepository, options: OpenProjectRepositoryOptions = {}): Promise<ProjectRepository> {
  return openRepository(services.config, sourceOf(project), {
    ...options,
    upstreamAccess: () => upstreamAccessOf(services, project),
    onFetched: () => services.events.emit('project.branch-moved', { projectId: project.id }),
  });
}

/** Creates a hosted project's repository, or points its HEAD at a new default branch; checks a mirror's repo_url. */
export function provisionProjectRepository(services: Services, project: ProjectOfRepository): Promise<void> {
  return provisionRepository(services.config, sourceOf(project));
}

/** Deletes whatever svc keeps on disk for the project. Idempotent. */
export function removeProjectRepository(services: Services, project: Pick<ProjectRow, 'id'>): Promise<void> {
  return removeRepository(services.config, project.id);
}

/** A mirror's credentials (project secrets GIT_TOKEN, GIT_USERNAME), and the address rule of a project a non-administrator created. */
async function upstreamAccessOf(services: Services, project: ProjectOfRepository): Promise<UpstreamAccess> {
  const [token, username, creator] = await Promise.all([
    readSecretValue(services, project.id, GIT_TOKEN_SECRET),
    readSecretValue(services, project.id, GIT_USERNAME_SECRET),
    services.db.selectFrom('users').select('is_admin').where('id', '=', project.created_by).executeTakeFirst(),
  ]);
  const credentials: UpstreamAccess['credentials'] = {};
  if (token) credentials.token = token;
  if (username) credentials.username = username;
  return { credentials, pinToPublicAddress: !(creator !== undefined && readBool(creator.is_admin)) };
}
