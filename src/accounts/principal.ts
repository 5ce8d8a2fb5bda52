import type { Kysely } from 'kysely';
import type { Database, ProjectRole } from '../db/schema.js';
import { readBool, readJson } from '../db/values.js';
import { CAPABILITIES, capabilitiesOfRole, type Capability } from './capabilities.js';
import { digestsEqual, hashToken, type TokenKind } from './token-secrets.js';

/** Who a credential acts as. */
export interface Principal {
  kind: TokenKind;
  tokenId: string;
  accountId: string;
  userId: string;
  isAdmin: boolean;
  /** Set for project and sandbox tokens: the one project they may touch. */
  projectId: string | null;
  /**
   * Project and sandbox tokens: the listed capabilities that their creator still holds on the project;
   * user tokens: all of them (access is decided per project, by membership).
   */
  capabilities: readonly Capability[];
  /** Sandbox and CLI tokens: the session they belong to. */
  sessionId: string | null;
  /** Clone credentials and CLI tokens of a session: the one ref they may push. */
  pushRef: string | null;
}

/**
 * Why a credential that exists does not act: its user was disabled, or (a project or sandbox token) the
 * user who created it no longer has access to its project. A token never grants more than its creator holds.
 */
export type TokenRefusal = { reason: 'unknown' } | { reason: 'user-disabled'; userName: string } | { reason: 'creator-lost-access'; userName: string; projectSlug: string };

export type TokenCheck = { principal: Principal } | { refusal: TokenRefusal };

/**
 * Recently resolved tokens, per database, for `cacheMs` (SVC_TOKEN_CACHE_MS, a second by default): a
 * publish-heavy agent otherwise pays a query per request. A revocation, a disabled user or a removed member
 * in this process clears the cache at once; another replica notices within `cacheMs`. Refusals are never cached.
 */
const MAX_CACHED_PRINCIPALS = 10_000;
const principalCaches = new WeakMap<Kysely<Database>, Map<string, { principal: Principal; until: number }>>();

export function forgetCachedPrincipals(db: Kysely<Database>): void {
  principalCaches.get(db)?.clear();
}

const UNKNOWN: { refusal: TokenRefusal } = { refusal: { reason: 'unknown' } };

export async function checkToken(db: Kysely<Database>, token: string, cacheMs: number): Promise<TokenCheck> {
  if (token.length === 0 || token.length > 512) return UNKNOWN;
  const digest = hashToken(token);
  let cache = principalCaches.get(db);
  if (!cache) {
    cache = new Map();
    principalCaches.set(db, cache);
  }
  const cached = cache.get(digest);
  const now = Date.now();
  if (cached && cached.until > now) return { principal: cached.principal };
  const found = await lookUpToken(db, digest);
  if ('principal' in found) {
    if (cache.size >= MAX_CACHED_PRINCIPALS) cache.clear();
    cache.set(digest, { principal: found.principal, until: Math.min(now + cacheMs, found.expiresAt) });
    return { principal: found.principal };
  }
  return found;
}

async function lookUpToken(db: Kysely<Database>, digest: string): Promise<{ principal: Principal; expiresAt: number } | { refusal: TokenRefusal }> {
  const row = await db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .leftJoin('project_members', (join) => join.onRef('project_members.project_id', '=', 'tokens.project_id').onRef('project_members.user_id', '=', 'tokens.user_id'))
    .leftJoin('projects', 'projects.id', 'tokens.project_id')
    .select([
      'tokens.id',
      'tokens.kind',
      'tokens.token_hash',
      'tokens.account_id',
      'tokens.user_id',
      'tokens.project_id',
      'tokens.capabilities',
      'tokens.expires_at',
      'tokens.session_id',
      'tokens.push_ref',
      'users.name as user_name',
      'users.is_admin',
      'users.disabled_at',
      'project_members.role',
      'projects.slug as project_slug',
    ])
    .where('tokens.token_hash', '=', digest)
    .executeTakeFirst();
  if (!row || !digestsEqual(row.token_hash, digest)) return UNKNOWN;
  const expiresAt = row.expires_at ? Date.parse(row.expires_at) : Number.POSITIVE_INFINITY;
  if (expiresAt <= Date.now()) return UNKNOWN;
  if (row.disabled_at !== null) return { refusal: { reason: 'user-disabled', userName: row.user_name } };
  const creatorIsAdmin = readBool(row.is_admin);
  let capabilities: readonly Capability[] = CAPABILITIES;
  if (row.kind !== 'user') {
    const creatorHolds = creatorIsAdmin ? CAPABILITIES : row.role ? capabilitiesOfRole(row.role as ProjectRole) : null;
    if (creatorHolds === null) {
      return { refusal: { reason: 'creator-lost-access', userName: row.user_name, projectSlug: row.project_slug ?? row.project_id ?? '' } };
    }
    capabilities = readJson<Capability[]>(row.capabilities, []).filter((capability) => creatorHolds.includes(capability));
  }
  const principal: Principal = {
    kind: row.kind,
    tokenId: row.id,
    accountId: row.account_id,
    userId: row.user_id,
    isAdmin: row.kind === 'user' && creatorIsAdmin,
    projectId: row.project_id,
    capabilities,
    sessionId: row.session_id ?? null,
    pushRef: row.push_ref ?? null,
  };
  return { principal, expiresAt };
}
