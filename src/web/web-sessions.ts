/**
 * Browser sessions: a random id in an HttpOnly cookie, of which only the SHA-256 hash is stored in
 * `web_sessions` (a stolen table opens no session). A session acts as its user, like a user token.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { CAPABILITIES } from '../accounts/capabilities.js';
import type { Principal } from '../accounts/principal.js';
import type { BackgroundTask } from '../background/task-runner.js';
import { digestsEqual, hashToken } from '../accounts/token-secrets.js';
import type { Database } from '../db/schema.js';
import { readBool } from '../db/values.js';

export const SESSION_COOKIE = 'svc_session';
export const SESSION_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

export interface NewWebSession {
  /** The cookie value, known only to the browser after this. */
  secret: string;
  expiresAt: Date;
}

export async function createWebSession(db: Kysely<Database>, user: { id: string; accountId: string }, now = new Date()): Promise<NewWebSession> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_SECONDS * 1000);
  await db
    .insertInto('web_sessions')
    .values({ id_hash: hashToken(secret), user_id: user.id, account_id: user.accountId, created_at: now.toISOString(), expires_at: expiresAt.toISOString() })
    .execute();
  return { secret, expiresAt };
}

/** Forgets sessions that have run out, on one replica at a time (findWebSession already refuses them). */
export const expiredWebSessionsSweep: BackgroundTask = {
  name: 'expired-web-sessions',
  runsOn: 'one-replica',
  intervalMs: 60 * 60 * 1000,
  async run({ services, now }) {
    await services.db.deleteFrom('web_sessions').where('expires_at', '<', now.toISOString()).execute();
  },
};

/** The principal of a live session, or null for an unknown, forged or expired cookie. */
export async function findWebSession(db: Kysely<Database>, secret: string): Promise<Principal | null> {
  if (secret.length === 0 || secret.length > 128) return null;
  const digest = hashToken(secret);
  const row = await db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select(['web_sessions.id_hash', 'web_sessions.user_id', 'web_sessions.account_id', 'web_sessions.expires_at', 'users.is_admin'])
    .where('web_sessions.id_hash', '=', digest)
    .where('users.disabled_at', 'is', null)
    .executeTakeFirst();
  if (!row || !digestsEqual(row.id_hash, digest)) return null;
  if (Date.parse(row.expires_at) <= Date.now()) return null;
  return {
    kind: 'user',
    tokenId: `web-session:${digest.slice(0, 16)}`,
    accountId: row.account_id,
    userId: row.user_id,
    isAdmin: readBool(row.is_admin),
    projectId: null,
    capabilities: CAPABILITIES,
    sessionId: null,
    pushRef: null,
  };
}

/** Ends every web session of a user (signed out everywhere); returns how many there were. */
export async function endWebSessionsOf(db: Kysely<Database>, userId: string): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteWebSession(db: Kysely<Database>, secret: string): Promise<void> {
  if (secret.length === 0 || secret.length > 128) return;
  await db.deleteFrom('web_sessions').where('id_hash', '=', hashToken(secret)).execute();
}
