import fs from 'node:fs';
import path from 'node:path';
import type { Services } from '../context.js';
import { nowIso } from '../db/values.js';
import { newId } from '../ids.js';
import { CAPABILITIES } from './capabilities.js';
import { generateToken, hashToken } from './token-secrets.js';

const ENV_TOKEN_NAME = 'admin (SVC_ADMIN_TOKEN)';
const GENERATED_TOKEN_NAME = 'admin (first boot)';

export interface BootstrapResult {
  accountId: string;
  adminUserId: string;
  /** Set only when a token was generated on this boot: the one time it is shown. */
  generatedToken: string | null;
  tokenFile: string | null;
}

/**
 * First boot creates account `default`, user `admin` and an admin token (contract §1). Safe to run on
 * every start and from several replicas at once: inserts ignore rows another replica already wrote.
 */
export async function bootstrap(services: Services): Promise<BootstrapResult> {
  const { db, config } = services;
  const now = nowIso();
  await db
    .insertInto('accounts')
    .values({ id: newId(), name: 'default', created_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const account = await db.selectFrom('accounts').select('id').where('name', '=', 'default').executeTakeFirstOrThrow();
  await db
    .insertInto('users')
    .values({ id: newId(), account_id: account.id, name: 'admin', password_hash: null, is_admin: true, created_at: now })
    .onConflict((oc) => oc.columns(['account_id', 'name']).doNothing())
    .execute();
  const admin = await db
    .selectFrom('users')
    .select('id')
    .where('account_id', '=', account.id)
    .where('name', '=', 'admin')
    .executeTakeFirstOrThrow();

  const result: BootstrapResult = { accountId: account.id, adminUserId: admin.id, generatedToken: null, tokenFile: null };
  const tokenRow = (token: string, name: string) => ({
    id: newId(),
    account_id: account.id,
    kind: 'user' as const,
    name,
    token_hash: hashToken(token),
    user_id: admin.id,
    project_id: null,
    capabilities: JSON.stringify(CAPABILITIES),
    created_at: now,
    expires_at: null,
  });

  if (config.adminToken) {
    // The configured string is the admin token; a changed value replaces the previous one.
    const digest = hashToken(config.adminToken);
    await db.deleteFrom('tokens').where('name', '=', ENV_TOKEN_NAME).where('token_hash', '!=', digest).execute();
    await db
      .insertInto('tokens')
      .values(tokenRow(config.adminToken, ENV_TOKEN_NAME))
      .onConflict((oc) => oc.column('token_hash').doNothing())
      .execute();
    return result;
  }

  const existing = await db.selectFrom('tokens').select('id').where('user_id', '=', admin.id).where('kind', '=', 'user').executeTakeFirst();
  if (existing) return result;
  const token = generateToken('user');
  await db.insertInto('tokens').values(tokenRow(token, GENERATED_TOKEN_NAME)).execute();
  fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const tokenFile = path.join(config.dataDir, 'admin-token');
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(tokenFile, 0o600);
  result.generatedToken = token;
  result.tokenFile = tokenFile;
  return result;
}
