import type { ActorContext } from '../context.js';
import { isUniqueViolation } from '../db/database.js';
import { nowIso, readBool } from '../db/values.js';
import { AppError, nameTaken, notFound, validationFailed } from '../errors.js';
import { remoteKind } from '../git/arguments.js';
import { InvalidGitArgumentError } from '../git/errors.js';
import { assertDefaultBranchExists } from '../repositories/default-branch-choice.js';
import { assertPublicRepoHost } from '../repositories/upstream-address.js';
import { GIT_TOKEN_SECRET, GIT_USERNAME_SECRET } from '../repositories/project-repository.js';
import { assertUpstreamReadable } from '../repositories/upstream-check.js';
import { newId } from '../ids.js';
import { forgetCachedPrincipals } from '../accounts/principal.js';
import { putSecret } from '../accounts/secrets.js';
import { loadProjectFor, requireCapability, requireUserToken, type ProjectRow } from '../accounts/access.js';
import { openProjectRepository, provisionProjectRepository, removeProjectRepository } from './repository-of.js';
import { inTransaction } from '../db/in-transaction.js';

export interface CreateProjectInput {
  name: string;
  slug?: string | undefined;
  default_branch?: string | undefined;
  repo_url?: string | undefined;
  /** Credentials for repo_url, kept as the project secrets GIT_TOKEN and GIT_USERNAME. */
  git_token?: string | undefined;
  git_username?: string | undefined;
  /** false: create the project without reading repo_url first (an upstream that is not up yet). */
  check_repo?: boolean | undefined;
}

export interface UpdateProjectInput {
  name?: string | undefined;
  default_branch?: string | undefined;
  bundled_model_access?: boolean | undefined;
}

/** Derives a URL-safe slug from a display name: "My API (v2)" → "my-api-v2". */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'project';
}

/** Projects are created by people (user tokens), not by projects. */
export function requireProjectCreator(ctx: ActorContext): void {
  requireUserToken(ctx, 'create projects');
}

export async function createProject(ctx: ActorContext, input: CreateProjectInput): Promise<ProjectRow> {
  requireProjectCreator(ctx);
  const now = nowIso();
  const project: ProjectRow = {
    id: newId(),
    account_id: ctx.actor.accountId,
    name: input.name.trim(),
    slug: input.slug ?? slugify(input.name),
    default_branch: input.default_branch ?? 'main',
    repo_url: input.repo_url ?? null,
    created_by: ctx.actor.userId,
    created_at: now,
    updated_at: now,
    bundled_model_access: false,
  };
  if (project.name === '') throw new AppError('VALIDATION_FAILED', 'The project name must not be blank.', { issues: [{ path: '/name', message: 'must not be blank.' }] });
  if (project.repo_url === null && (input.git_token !== undefined || input.git_username !== undefined)) {
    const field = input.git_token !== undefined ? 'git_token' : 'git_username';
    throw validationFailed([{ path: `/${field}`, message: 'is for reading repo_url; a project without repo_url has its repository on svc, which needs no git credentials.' }]);
  }
  if (project.repo_url !== null) {
    await assertUsableRepoUrl(ctx, project.repo_url);
    if (input.check_repo !== false) {
      const credentials = { ...(input.git_token !== undefined ? { token: input.git_token } : {}), ...(input.git_username !== undefined ? { username: input.git_username } : {}) };
      await assertUpstreamReadable({ repoUrl: project.repo_url, credentials, pinToPublicAddress: !ctx.actor.isAdmin });
    }
  }
  // The repository exists before the row does, so a visible project always has one; a failed insert removes it.
  await provisionProjectRepository(ctx, project);
  try {
    await inTransaction(ctx, async ({ db: trx }) => {
      await trx.insertInto('projects').values(project).execute();
      if (!ctx.actor.isAdmin) {
        await trx.insertInto('project_members').values({ project_id: project.id, user_id: ctx.actor.userId, role: 'admin', created_at: now }).execute();
      }
    });
  } catch (error) {
    await removeProjectRepository(ctx, project);
    if (isUniqueViolation(error)) {
      throw nameTaken(`A project with the slug "${project.slug}" already exists; choose another slug.`);
    }
    throw error;
  }
  if (input.git_token !== undefined) await putSecret(ctx, project.id, GIT_TOKEN_SECRET, input.git_token);
  if (input.git_username !== undefined) await putSecret(ctx, project.id, GIT_USERNAME_SECRET, input.git_username);
  return project;
}

/**
 * A repo_url must be a transport svc talks to, without credentials in it. A local path or file:// URL would let svc read any
 * repository on its own disk (another project's hosted repository included), so only an administrator,
 * who can read the data directory anyway, may point a project at one.
 */
async function assertUsableRepoUrl(ctx: ActorContext, repoUrl: string): Promise<void> {
  let kind;
  try {
    kind = remoteKind(repoUrl);
  } catch (error) {
    if (error instanceof InvalidGitArgumentError) throw validationFailed([{ path: '/repo_url', message: error.message }]);
    throw error;
  }
  if ((kind === 'https' || kind === 'http') && new URL(repoUrl).password !== '') {
    // The URL is shown to every reader of the project and passed to git as an argument; the secret is neither.
    throw validationFailed([
      { path: '/repo_url', message: 'must not contain a password or token; store the token in the project secret GIT_TOKEN instead.' },
    ]);
  }
  if (kind === 'file' && !ctx.actor.isAdmin) {
    throw new AppError('FORBIDDEN', 'Only an administrator can create a project from a local path or file:// repo_url; use an https:// or ssh:// URL.');
  }
  if (!ctx.actor.isAdmin) await assertPublicRepoHost(repoUrl);
}

export async function listProjects(ctx: ActorContext): Promise<ProjectRow[]> {
  const { actor } = ctx;
  let query = ctx.db.selectFrom('projects').selectAll('projects').where('projects.account_id', '=', actor.accountId);
  if (actor.kind === 'project') {
    // The listing shows what reading the project shows, so it needs the same capability.
    requireCapability(ctx, 'project.read', 'list projects');
    query = query.where('projects.id', '=', actor.projectId ?? '');
  } else if (!actor.isAdmin) {
    query = query.innerJoin('project_members', 'project_members.project_id', 'projects.id').where('project_members.user_id', '=', actor.userId);
  }
  return query.orderBy('projects.name').orderBy('projects.id').execute();
}

export async function getProject(ctx: ActorContext, projectId: string): Promise<ProjectRow> {
  return loadProjectFor(ctx, projectId, 'project.read', 'read this project');
}

/**
 * The project with this slug in the actor's account, if they may read it: 404 for a slug of no project
 * there, as for an id (the web pages name projects by slug in their paths).
 */
export async function getProjectBySlug(ctx: ActorContext, slug: string): Promise<ProjectRow> {
  const found = await ctx.db.selectFrom('projects').select('id').where('account_id', '=', ctx.actor.accountId).where('slug', '=', slug).executeTakeFirst();
  if (!found) throw notFound('project', slug);
  return getProject(ctx, found.id);
}

export function loadProjectToChange(ctx: ActorContext, projectId: string): Promise<ProjectRow> {
  return loadProjectFor(ctx, projectId, 'project.admin', 'change this project’s settings');
}

export async function updateProject(ctx: ActorContext, projectId: string, input: UpdateProjectInput): Promise<ProjectRow> {
  const project = await loadProjectToChange(ctx, projectId);
  const changes: Partial<ProjectRow> = {};
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.default_branch !== undefined) changes.default_branch = input.default_branch;
  if (input.bundled_model_access !== undefined && input.bundled_model_access !== readBool(project.bundled_model_access)) changes.bundled_model_access = input.bundled_model_access;
  if (changes.default_branch !== undefined && changes.default_branch !== project.default_branch) {
    await assertDefaultBranchExists(await openProjectRepository(ctx, project), project.repo_url, changes.default_branch);
  }
  if (Object.keys(changes).length === 0) return project;
  changes.updated_at = nowIso();
  await ctx.db.updateTable('projects').set(changes).where('id', '=', project.id).execute();
  const updated = { ...project, ...changes };
  // A hosted repository's HEAD names the default branch: what clones check out and what pushes may not delete.
  if (changes.default_branch !== undefined && changes.default_branch !== project.default_branch) {
    await provisionProjectRepository(ctx, updated);
    // The triggers are the manifest on the default branch (contract §7): the new branch's set replaces the old one now.
    ctx.events.emit('project.branch-moved', { projectId: project.id });
  }
  return updated;
}

export async function deleteProject(ctx: ActorContext, projectId: string): Promise<ProjectRow> {
  const project = await loadProjectFor(ctx, projectId, 'project.admin', 'delete this project');
  const deleted = await ctx.db.deleteFrom('projects').where('id', '=', project.id).executeTakeFirst();
  if (Number(deleted.numDeletedRows) === 0) throw notFound('project', projectId);
  // The project's tokens went with it.
  forgetCachedPrincipals(ctx.db);
  await removeProjectRepository(ctx, project);
  return project;
}
