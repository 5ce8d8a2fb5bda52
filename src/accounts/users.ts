import type { ActorContext } from '../context.js';
import { isUniqueViolation } from '../db/database.js';
import { nowIso, readBool } from '../db/values.js';
import { AppError, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { loadProjectFor, requireAdmin } from './access.js';
import { CAPABILITIES } from './capabilities.js';
import { hashPassword } from './passwords.js';
import { generateToken, hashToken } from './token-secrets.js';

export interface CreateUserInput {
  name: string;
  password?: string | undefined;
  admin?: boolean | undefined;
}

export interface UserSummary {
  id: string;
  name: string;
  admin: boolean;
  created_at: string;
}

/** Adds a person to the account with a first user token (shown once). Administrators only. */
export function requireUserCreator(ctx: ActorContext): void {
  requireAdmin(ctx, 'create users');
}

export async function createUser(ctx: ActorContext, input: CreateUserInput): Promise<{ user: UserSummary; token: string }> {
  requireUserCreator(ctx);
  const now = nowIso();
  const user: UserSummary = { id: newId(), name: input.name, admin: input.admin ?? false, created_at: now };
  const token = generateToken('user');
  try {
    await ctx.db.transaction().execute(async (trx) => {
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
    if (isUniqueViolation(error)) throw new AppError('CONFLICT', `A user named "${user.name}" already exists.`);
    throw error;
  }
  return { user, token };
}

export async function listUsers(ctx: ActorContext): Promise<UserSummary[]> {
  requireAdmin(ctx, 'list users');
  const rows = await ctx.db.selectFrom('users').select(['id', 'name', 'is_admin', 'created_at']).where('account_id', '=', ctx.actor.accountId).orderBy('name').execute();
  return rows.map((row) => ({ id: row.id, name: row.name, admin: readBool(row.is_admin), created_at: row.created_at }));
}

async function loadUser(ctx: ActorContext, userId: string) {
  if (!isUuid(userId)) throw new AppError('BAD_REQUEST', `The user id ${JSON.stringify(userId)} is not a UUID.`);
  const user = await ctx.db.selectFrom('users').select(['id', 'name']).where('id', '=', userId).where('account_id', '=', ctx.actor.accountId).executeTakeFirst();
  if (!user) throw notFound('user', userId);
  return user;
}

export async function addProjectMember(ctx: ActorContext, projectId: string, userId: string): Promise<void> {
  requireAdmin(ctx, 'add project members');
  const project = await loadProjectFor(ctx, projectId, 'project.write', 'add project members');
  const user = await loadUser(ctx, userId);
  await ctx.db
    .insertInto('project_members')
    .values({ project_id: project.id, user_id: user.id, created_at: nowIso() })
    .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
    .execute();
}

export async function removeProjectMember(ctx: ActorContext, projectId: string, userId: string): Promise<void> {
  requireAdmin(ctx, 'remove project members');
  const project = await loadProjectFor(ctx, projectId, 'project.write', 'remove project members');
  const user = await loadUser(ctx, userId);
  const result = await ctx.db.deleteFrom('project_members').where('project_id', '=', project.id).where('user_id', '=', user.id).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('project member', userId);
}
