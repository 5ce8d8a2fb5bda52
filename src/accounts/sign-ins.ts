/**
 * Browser sign-ins (not to be confused with agent sessions): a random id in an HttpOnly cookie, of which
 * only the SHA-256 hash is stored in `sign_ins` (a stolen table opens no sign-in). A sign-in acts as its
 * user, like a user token.
 */
import { randomBytes } from 'node:crypto';
import { CAPABILITIES } from './capabilities.js';
import type { Services } from '../context.js';
import { verifyPassword } from './passwords.js';
import type { Principal } from './principal.js';
import type { BackgroundTask } from '../background/task-runner.js';
import { digestsEqual, hashToken } from './token-secrets.js';
import { readBool } from '../db/values.js';

export const SIGN_IN_COOKIE = 'svc_session';
export const SIGN_IN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

export interface NewSignIn {
  /** The cookie value, known only to the browser after this. */
  secret: string;
  expiresAt: Date;
}

/** A well-formed scrypt hash of a random password: failed look-ups cost as much as wrong passwords. */
const DECOY_PASSWORD_HASH = 'scrypt$c3ZjLWRlY295LXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export interface PasswordSignInInput {
  name: string;
  password: string;
}

/**
 * The user a name and password sign in as, or null, before there is a sign-in (so no actor to check):
 * disabled users are not found, and an unknown name costs a password check like a wrong password does.
 * Names are unique per account, not across accounts: the first user of that name whose password matches.
 */
export async function userForPassword(services: Pick<Services, 'db'>, input: PasswordSignInInput): Promise<{ id: string; accountId: string } | null> {
  const { name, password } = input;
  // No user name holds a NUL, which PostgreSQL text cannot hold either: such a name is simply unknown.
  const users = name.includes('\u0000') ? [] : await services.db.selectFrom('users').select(['id', 'account_id', 'password_hash']).where('name', '=', name).where('disabled_at', 'is', null).execute();
  let found: { id: string; accountId: string } | null = null;
  for (const user of users) {
    if (!found && user.password_hash && (await verifyPassword(password, user.password_hash))) found = { id: user.id, accountId: user.account_id };
  }
  if (!users.some((user) => user.password_hash)) await verifyPassword(password, DECOY_PASSWORD_HASH);
  return found;
}

export async function createSignIn(services: Pick<Services, 'db'>, user: { id: string; accountId: string }, now = new Date()): Promise<NewSignIn> {
  const secret = randomBytes(32).toString('base64url');
  const expiresAt = new Date(now.getTime() + SIGN_IN_LIFETIME_SECONDS * 1000);
  await services.db
    .insertInto('sign_ins')
    .values({ id_hash: hashToken(secret), user_id: user.id, account_id: user.accountId, created_at: now.toISOString(), expires_at: expiresAt.toISOString() })
    .execute();
  return { secret, expiresAt };
}

/** Forgets sign-ins that have run out, on one replica at a time (findSignIn already refuses them). */
export const expiredSignInsSweep: BackgroundTask = {
  name: 'expired-sign-ins',
  runsOn: 'one-replica',
  intervalMs: 60 * 60 * 1000,
  async run({ services, now }) {
    await services.db.deleteFrom('sign_ins').where('expires_at', '<', now.toISOString()).execute();
  },
};

/** The principal of a live sign-in, or null for an unknown, forged or expired cookie. */
export async function findSignIn(services: Pick<Services, 'db'>, secret: string): Promise<Principal | null> {
  if (secret.length === 0 || secret.length > 128) return null;
  const digest = hashToken(secret);
  const row = await services.db
    .selectFrom('sign_ins')
    .innerJoin('users', 'users.id', 'sign_ins.user_id')
    .select(['sign_ins.id_hash', 'sign_ins.user_id', 'sign_ins.account_id', 'sign_ins.expires_at', 'users.is_admin'])
    .where('sign_ins.id_hash', '=', digest)
    .where('users.disabled_at', 'is', null)
    .executeTakeFirst();
  if (!row || !digestsEqual(row.id_hash, digest)) return null;
  if (Date.parse(row.expires_at) <= Date.now()) return null;
  return {
    kind: 'user',
    tokenId: `sign-in:${digest.slice(0, 16)}`,
    accountId: row.account_id,
    userId: row.user_id,
    isAdmin: readBool(row.is_admin),
    projectId: null,
    capabilities: CAPABILITIES,
    sessionId: null,
    pushRef: null,
  };
}

/** Ends every sign-in of a user (signed out everywhere); returns how many there were. */
export async function endSignInsOf(services: Pick<Services, 'db'>, userId: string): Promise<number> {
  const result = await services.db.deleteFrom('sign_ins').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteSignIn(services: Pick<Services, 'db'>, secret: string): Promise<void> {
  if (secret.length === 0 || secret.length > 128) return;
  await services.db.deleteFrom('sign_ins').where('id_hash', '=', hashToken(secret)).execute();
}
