import type { ActorContext } from '../context.js';
import { readBool } from '../db/values.js';
import { AppError, notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import { requireUserToken } from './access.js';

export interface UserRow {
  id: string;
  name: string;
  admin: boolean;
  disabled_at: string | null;
  model_access: boolean;
  created_at: string;
}

/** A user of the actor's account by id or by name, or null. */
export async function findUser(ctx: Pick<ActorContext, 'db' | 'actor'>, userRef: string): Promise<UserRow | null> {
  if (userRef.length === 0 || userRef.length > 200 || userRef.includes('\u0000')) return null;
  const row = await ctx.db
    .selectFrom('users')
    .select(['id', 'name', 'is_admin', 'disabled_at', 'model_access', 'created_at'])
    .where('account_id', '=', ctx.actor.accountId)
    .where(isUuid(userRef) ? 'id' : 'name', '=', isUuid(userRef) ? userRef.toLowerCase() : userRef)
    .executeTakeFirst();
  return row ? { id: row.id, name: row.name, admin: readBool(row.is_admin), disabled_at: row.disabled_at, model_access: readBool(row.model_access), created_at: row.created_at } : null;
}

/**
 * The user a person-level route is about: `me` (the caller), or another user by id or name, which only an
 * administrator may act on. Unknown users are 404.
 */
export async function loadUserFor(ctx: ActorContext, userRef: string, actionOnOthers: string): Promise<UserRow> {
  requireUserToken(ctx, actionOnOthers);
  const ref = userRef === 'me' ? ctx.actor.userId : userRef;
  const user = await findUser(ctx, ref);
  if (!user) throw notFound('user', userRef);
  if (user.id !== ctx.actor.userId && !ctx.actor.isAdmin) throw new AppError('FORBIDDEN', `Only an administrator can ${actionOnOthers}; use "me" for your own.`);
  return user;
}
