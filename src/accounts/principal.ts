import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { readBool, readJson } from '../db/values.js';
import { CAPABILITIES, type Capability } from './capabilities.js';
import { digestsEqual, hashToken, type TokenKind } from './token-secrets.js';

/** Who a bearer token acts as. */
export interface Principal {
  kind: TokenKind;
  tokenId: string;
  accountId: string;
  userId: string;
  isAdmin: boolean;
  /** Set for project and sandbox tokens: the one project they may touch. */
  projectId: string | null;
  /** Project tokens: the listed capabilities; user tokens: all of them (access is decided per project). */
  capabilities: readonly Capability[];
}

/**
 * Recently resolved tokens, per database, for one second: a publish-heavy agent otherwise pays a query
 * per request. A revocation in this process clears the cache at once; another replica notices within
 * the second. Unknown tokens are never cached.
 */
const PRINCIPAL_TTL_MS = 1_000;
const MAX_CACHED_PRINCIPALS = 10_000;
const principalCaches = new WeakMap<Kysely<Database>, Map<string, { principal: Principal; until: number }>>();

export function forgetCachedPrincipals(db: Kysely<Database>): void {
  principalCaches.get(db)?.clear();
}

export async function authenticateToken(db: Kysely<Database>, token: string): Promise<Principal | null> {
  if (token.length === 0 || token.length > 512) return null;
  const digest = hashToken(token);
  let cache = principalCaches.get(db);
  if (!cache) {
    cache = new Map();
    principalCaches.set(db, cache);
  }
  const cached = cache.get(digest);
  const now = Date.now();
  if (cached && cached.until > now) return cached.principal;
  const principal = await lookUpToken(db, digest);
  if (principal) {
    if (cache.size >= MAX_CACHED_PRINCIPALS) cache.clear();
    cache.set(digest, { principal: principal.principal, until: Math.min(now + PRINCIPAL_TTL_MS, principal.expiresAt) });
  }
  return principal?.principal ?? null;
}

async function lookUpToken(db: Kysely<Database>, digest: string): Promise<{ principal: Principal; expiresAt: number } | null> {
  const row = await db
    .selectFrom('tokens')
    .innerJoin('users', 'users.id', 'tokens.user_id')
    .select([
      'tokens.id',
      'tokens.kind',
      'tokens.token_hash',
      'tokens.account_id',
      'tokens.user_id',
      'tokens.project_id',
      'tokens.capabilities',
      'tokens.expires_at',
      'users.is_admin',
    ])
    .where('tokens.token_hash', '=', digest)
    .executeTakeFirst();
  if (!row || !digestsEqual(row.token_hash, digest)) return null;
  const expiresAt = row.expires_at ? Date.parse(row.expires_at) : Number.POSITIVE_INFINITY;
  if (expiresAt <= Date.now()) return null;
  const principal: Principal = {
    kind: row.kind,
    tokenId: row.id,
    accountId: row.account_id,
    userId: row.user_id,
    isAdmin: row.kind === 'user' && readBool(row.is_admin),
    projectId: row.project_id,
    capabilities: row.kind === 'user' ? CAPABILITIES : readJson<Capability[]>(row.capabilities, []),
  };
  return { principal, expiresAt };
}
