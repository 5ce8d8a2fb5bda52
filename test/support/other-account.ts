/**
 * A second account on a test server, with an admin of its own. The API cannot create accounts (one
 * per installation is made at first boot), so its rows are written as bootstrap writes the first.
 */
import { CAPABILITIES } from '../../src/accounts/capabilities.js';
import { generateToken, hashToken } from '../../src/accounts/token-secrets.js';
import { newId } from '../../src/ids.js';
import type { TestServer } from './test-server.js';

/** What a test needs to act as an account's admin: the same shape as the test server's own. */
export type AccountClient = Pick<TestServer, 'url' | 'adminToken' | 'request'>;

export async function otherAccount(svc: TestServer, name: string): Promise<AccountClient> {
  const db = svc.server.services.db;
  const now = new Date().toISOString();
  const accountId = newId();
  const userId = newId();
  const token = generateToken('user');
  await db.insertInto('accounts').values({ id: accountId, name, created_at: now }).execute();
  await db.insertInto('users').values({ id: userId, account_id: accountId, name: 'admin', password_hash: null, is_admin: true, created_at: now }).execute();
  await db
    .insertInto('tokens')
    .values({
      id: newId(),
      account_id: accountId,
      kind: 'user',
      name: `admin of ${name}`,
      token_hash: hashToken(token),
      user_id: userId,
      project_id: null,
      capabilities: JSON.stringify(CAPABILITIES),
      created_at: now,
      expires_at: null,
    })
    .execute();
  return { url: svc.url, adminToken: token, request: (method, route, options = {}) => svc.request(method, route, { token, ...options }) };
}
