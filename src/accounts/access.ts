import type { Selectable } from 'kysely';
import type { ProjectRole, ProjectsTable } from '../db/schema.js';
import { AppError, notFound } from '../errors.js';
import type { ActorContext } from '../context.js';
import { CAPABILITIES, capabilitiesOfRole, type Capability } from './capabilities.js';
import { isUuid } from '../ids.js';

/** A project as both dialects return it. */
export type ProjectRow = Selectable<ProjectsTable>;

/**
 * Requires a user token (routes like minting tokens act for a person, not a project). Routes that take
 * only user tokens say so in their route config, so a project token is refused (401) before this runs;
 * this is the operation's own guarantee.
 */
export function requireUserToken(ctx: ActorContext, action: string): void {
  if (ctx.actor.kind !== 'user') {
    throw new AppError(
      'UNAUTHENTICATED',
      `This route needs a user token (svc_u_…) to ${action}; this is a ${ctx.actor.kind} token, which acts only inside its project. Call it with your own user token.`,
    );
  }
}

export function requireAdmin(ctx: ActorContext, action: string): void {
  requireUserToken(ctx, action);
  if (!ctx.actor.isAdmin) throw new AppError('FORBIDDEN', `Only an administrator can ${action}.`);
}

/** The capabilities an action needs: one, or several that must all be held. */
export type Needed = Capability | readonly Capability[];

function neededList(needed: Needed): readonly Capability[] {
  return typeof needed === 'string' ? [needed] : needed;
}

/** Names every capability missing at once, so a token short of two is not fixed one refusal at a time. */
function missingSentence(missing: readonly Capability[]): string {
  return missing.length === 1 ? `the capability ${missing[0]}, which is` : `the capabilities ${missing.join(' and ')}, which are`;
}

export function requireCapability(ctx: ActorContext, needed: Needed, action: string): void {
  const missing = neededList(needed).filter((capability) => !ctx.actor.capabilities.includes(capability));
  if (missing.length > 0) throw new AppError('FORBIDDEN', `This token lacks ${missingSentence(missing)} needed to ${action}.`);
}

/**
 * Projects already loaded and checked for a request, by id and capability: a route checks access
 * before its body is validated (see server/access-check.ts), and the operation it then runs checks
 * again without asking the database twice.
 */
const checkedProjects = new WeakMap<ActorContext, Map<string, Promise<ProjectRow>>>();

/**
 * Loads a project the actor may see and checks one capability on it. Unknown ids and projects of
 * another account are 404; a visible project the token may not act on is 403.
 */
export function loadProjectFor(ctx: ActorContext, projectId: string, capability: Needed, action: string): Promise<ProjectRow> {
  let checked = checkedProjects.get(ctx);
  if (!checked) {
    checked = new Map();
    checkedProjects.set(ctx, checked);
  }
  const key = `${neededList(capability).join(',')} ${projectId}`;
  let project = checked.get(key);
  if (!project) {
    project = loadAndCheckProject(ctx, projectId, capability, action);
    checked.set(key, project);
  }
  return project;
}

async function loadAndCheckProject(ctx: ActorContext, projectId: string, capability: Needed, action: string): Promise<ProjectRow> {
  if (!isUuid(projectId)) {
    throw new AppError('BAD_REQUEST', `The project id ${JSON.stringify(projectId)} is not a UUID; use the id that svc project ls prints.`);
  }
  const project = await ctx.db
    .selectFrom('projects')
    .selectAll()
    .where('id', '=', projectId)
    .where('account_id', '=', ctx.actor.accountId)
    .executeTakeFirst();
  if (!project) throw notFound('project', projectId);
  await assertProjectAccess(ctx, project, capability, action);
  return project;
}

/** The role a user holds in a project, or null when they are not a member. */
export async function projectRoleOf(ctx: Pick<ActorContext, 'db'>, projectId: string, userId: string): Promise<ProjectRole | null> {
  const member = await ctx.db.selectFrom('project_members').select('role').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  return member ? (member.role as ProjectRole) : null;
}

/** The capabilities the actor holds on a project: a token's own (already cut to its creator's), or a person's by role. */
export async function capabilitiesOn(ctx: ActorContext, project: Pick<ProjectRow, 'id'>): Promise<readonly Capability[]> {
  const { actor } = ctx;
  if (actor.kind !== 'user') return actor.projectId === project.id ? actor.capabilities : [];
  if (actor.isAdmin) return CAPABILITIES;
  const role = await projectRoleOf(ctx, project.id, actor.userId);
  return role ? capabilitiesOfRole(role) : [];
}

export async function assertProjectAccess(ctx: ActorContext, project: ProjectRow, capability: Needed, action: string): Promise<void> {
  const { actor } = ctx;
  if (actor.kind !== 'user') {
    if (actor.projectId !== project.id) {
      throw new AppError('FORBIDDEN', `This project token belongs to another project, so it cannot ${action} here; use a token of this project.`);
    }
    requireCapability(ctx, capability, action);
    return;
  }
  if (actor.isAdmin) return;
  const role = await projectRoleOf(ctx, project.id, actor.userId);
  if (!role) throw new AppError('FORBIDDEN', `You are not a member of project ${project.slug}; ask an administrator to add you.`);
  const missing = neededList(capability).filter((needed) => !capabilitiesOfRole(role).includes(needed));
  if (missing.length > 0) {
    throw new AppError('FORBIDDEN', `You are a member of project ${project.slug} but not one of its admins, and to ${action} needs ${missing.join(' and ')}; ask an admin of the project.`);
  }
}
