import type { ActorContext } from '../context.js';
import { isUniqueViolation } from '../db/database.js';
import type { ProjectRole } from '../db/schema.js';
import { nowIso, readBool } from '../db/values.js';
import { conflict, nameTaken, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { endSignInsOf } from './sign-ins.js';
import { loadProjectFor, requireAdmin } from './access.js';
import { CAPABILITIES } from './capabilities.js';
import { hashPassword } from './passwords.js';
import { forgetCachedPrincipals } from './principal.js';
import { generateToken, hashToken } from './token-secrets.js';
import { findUser, loadUserFor, type UserRow } from './user-lookup.js';
import { inTransaction } from '../db/in-transaction.js';

export interface CreateUserInput {
  name: string;
  password?: string | undefined;
  admin?: boolean | undefined;
}

export interface UserSummary {
  id: string;
  name: string;
  admin: boolean;
  disabled: boolean;
  /** Entitled to bundled model access: their sessions in opted-in projects get the operator's model gateway. */
  model_access: boolean;
  created_at: string;
}

export interface MemberSummary {
  user_id: string;
  name: string;
  role: ProjectRole;
  created_at: string;
}

function presentUser(user: UserRow): UserSummary {
  return { id: user.id, name: user.name, admin: user.admin, disabled: user.disabled_at !== null, model_access: user.model_access, created_at: user.created_at };
}

/** Adds a person to the account with a first user token (shown once). Administrators only. */
export function requireUserCreator(ctx: ActorContext): void {
  requireAdmin(ctx, 'create users');
}

export async function createUser(ctx: ActorContext, input: CreateUserInput): Promise<{ user: UserSummary; token: string }> {
  requireUserCreator(ctx);
  const now = nowIso();
  const user: UserSummary = { id: newId(), name: input.name, admin: input.admin ?? false, disabled: false, model_access: false, created_at: now };
  const token = generateToken('user');
  try {
    await inTransaction(ctx, async ({ db: trx }) => {
      await trx
        .insertInto('users')
        .values({
          id: user.id,
          account_id: ctx.actor.accountId,
          name: user.name,
          password_hash: input.password ? await hashPassword(input.password) : null,
          is_admin: user.admin,
          created_at: now,
        })
        .execute();
      await trx
        .insertInto('tokens')
        .values({
          id: newId(),
          account_id: ctx.actor.accountId,
          kind: 'user',
          name: `${user.name} (created with the user)`,
          token_hash: hashToken(token),
          user_id: user.id,
          project_id: null,
          capabilities: JSON.stringify(CAPABILITIES),
          created_at: now,
          expires_at: null,
        })
        .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(`A user named "${user.name}" already exists.`);
    throw error;
  }
  return { user, token };
}

export async function listUsers(ctx: ActorContext): Promise<UserSummary[]> {
  requireAdmin(ctx, 'list users');
  const rows = await ctx.db.selectFrom('users').select(['id', 'name', 'is_admin', 'disabled_at', 'model_access', 'created_at']).where('account_id', '=', ctx.actor.accountId).orderBy('name').execute();
  return rows.map((row) =>
    presentUser({ id: row.id, name: row.name, admin: readBool(row.is_admin), disabled_at: row.disabled_at, model_access: readBool(row.model_access), created_at: row.created_at }),
  );
}

/**
 * Disabling a user ends their access at once: every token of theirs (user tokens and the project tokens
 * they created) stops working and every browser sign-in ends. Nothing is deleted, so enabling them restores
 * their tokens. An administrator cannot disable themselves: the account would be left without them.
 */
export async function disableUser(ctx: ActorContext, userRef: string): Promise<UserSummary> {
  requireAdmin(ctx, 'disable users');
  const user = await loadUserFor(ctx, userRef, 'disable users');
  if (user.id === ctx.actor.userId) throw conflict('You cannot disable yourself; another administrator can.');
  const disabledAt = user.disabled_at ?? nowIso();
  await ctx.db.updateTable('users').set({ disabled_at: disabledAt }).where('id', '=', user.id).execute();
  await endSignInsOf(ctx, user.id);
  forgetCachedPrincipals(ctx.db);
  return presentUser({ ...user, disabled_at: disabledAt });
}

export async function enableUser(ctx: ActorContext, userRef: string): Promise<UserSummary> {
  requireAdmin(ctx, 'enable users');
  const user = await loadUserFor(ctx, userRef, 'enable users');
  await ctx.db.updateTable('users').set({ disabled_at: null }).where('id', '=', user.id).execute();
  return presentUser({ ...user, disabled_at: null });
}

/**
 * Entitles a user to bundled model access, or takes it back (administrators; themselves included). It counts
 * from the next boot of a sandbox: a running session keeps the environment it booted with.
 */
export function requireModelAccessManager(ctx: ActorContext): void {
  requireAdmin(ctx, 'grant or revoke bundled model access');
}

export async function setModelAccess(ctx: ActorContext, userRef: string, modelAccess: boolean): Promise<UserSummary> {
  requireModelAccessManager(ctx);
  const user = await loadUserFor(ctx, userRef, 'grant or revoke bundled model access');
  await ctx.db.updateTable('users').set({ model_access: modelAccess }).where('id', '=', user.id).execute();
  return presentUser({ ...user, model_access: modelAccess });
}

/** Signs a user out of every browser: themselves, or anyone for an administrator. */
export async function endUserSignIns(ctx: ActorContext, userRef: string): Promise<number> {
  const user = await loadUserFor(ctx, userRef, 'end another user’s web sessions');
  return endSignInsOf(ctx, user.id);
}

/** Members are project settings: managed by holders of project.admin on the project. */
function loadProjectForMembers(ctx: ActorContext, projectId: string, action: string) {
  return loadProjectFor(ctx, projectId, 'project.admin', action);
}

async function loadMemberUser(ctx: ActorContext, userRef: string): Promise<UserRow> {
  const user = await findUser(ctx, userRef);
  if (!user) throw notFound('user', userRef);
  return user;
}

export async function listProjectMembers(ctx: ActorContext, projectId: string): Promise<MemberSummary[]> {
  const project = await loadProjectFor(ctx, projectId, 'project.read', 'list project members');
  const rows = await ctx.db
    .selectFrom('project_members')
    .innerJoin('users', 'users.id', 'project_members.user_id')
    .select(['project_members.user_id', 'users.name', 'project_members.role', 'project_members.created_at'])
    .where('project_members.project_id', '=', project.id)
    .orderBy('users.name')
    .execute();
  return rows.map((row) => ({ user_id: row.user_id, name: row.name, role: row.role as ProjectRole, created_at: row.created_at }));
}

/** Adds a member or changes their role; returns whether they were added. */
export async function putProjectMember(ctx: ActorContext, projectId: string, userRef: string, role: ProjectRole): Promise<{ member: MemberSummary; created: boolean }> {
  const project = await loadProjectForMembers(ctx, projectId, 'add project members');
  const user = await loadMemberUser(ctx, userRef);
  const now = nowIso();
  const updated = await ctx.db.updateTable('project_members').set({ role }).where('project_id', '=', project.id).where('user_id', '=', user.id).executeTakeFirst();
  const created = Number(updated.numUpdatedRows) === 0;
  if (created) {
    await ctx.db
      .insertInto('project_members')
      .values({ project_id: project.id, user_id: user.id, role, created_at: now })
      .onConflict((oc) => oc.columns(['project_id', 'user_id']).doUpdateSet({ role }))
      .execute();
  }
  // A demoted member's project tokens lose project.admin now, not within the cache's second.
  forgetCachedPrincipals(ctx.db);
  const member = (await listProjectMembers(ctx, project.id)).find((m) => m.user_id === user.id);
  return { member: member ?? { user_id: user.id, name: user.name, role, created_at: now }, created };
}

/** Removes a member: the tokens they created for the project stop working at once. */
export async function removeProjectMember(ctx: ActorContext, projectId: string, userRef: string): Promise<void> {
  const project = await loadProjectForMembers(ctx, projectId, 'remove project members');
  const user = await loadMemberUser(ctx, userRef);
  const result = await ctx.db.deleteFrom('project_members').where('project_id', '=', project.id).where('user_id', '=', user.id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('project member', userRef);
  forgetCachedPrincipals(ctx.db);
}

/**
 * The names of the people behind user ids a project's records carry (who opened, merged or closed a
 * change request, who started a session): anyone who may read the project sees them by name. Ids of no
 * user of the account are left out.
 */
export async function namesOfPeople(ctx: ActorContext, projectId: string, ids: readonly string[]): Promise<Array<{ id: string; name: string }>> {
  await loadProjectFor(ctx, projectId, 'project.read', 'read who did what in the project');
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()).filter((id) => isUuid(id)))];
  if (wanted.length === 0) return [];
  return ctx.db.selectFrom('users').select(['id', 'name']).where('account_id', '=', ctx.actor.accountId).where('id', 'in', wanted).orderBy('name').execute();
}
