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

export async function authenticateToken(db: Kysely<Database>, token: string): Promise<Principal | null> {
  if (token.length === 0 || token.length > 512) return null;
  const digest = hashToken(token);
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
  if (row.expires_at && Date.parse(row.expires_at) <= Date.now()) return null;
  return {
    kind: row.kind,
    tokenId: row.id,
    accountId: row.account_id,
    userId: row.user_id,
    isAdmin: row.kind === 'user' && readBool(row.is_admin),
    projectId: row.project_id,
    capabilities: row.kind === 'user' ? CAPABILITIES : readJson<Capability[]>(row.capabilities, []),
  };
}
