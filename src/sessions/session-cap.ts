import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import { ACTIVE_STATUSES } from './session-row.js';

/**
 * Called inside the transaction that just made a session active (created, resumed or woken): over the cap,
 * the error rolls that back. Counting after writing is what makes it hold between replicas: SQLite has one
 * writer, and PostgreSQL callers hold the account's advisory lock.
 */
export async function assertUnderSessionCap(trx: Kysely<Database>, accountId: string, maxSessions: number): Promise<void> {
  const row = await trx
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('status', 'in', ACTIVE_STATUSES)
    .executeTakeFirstOrThrow();
  if (Number(row.count) > maxSessions) {
    throw new AppError(
      'TOO_MANY_SESSIONS',
      `This account already has ${maxSessions} sessions provisioning or running, its limit (SVC_MAX_SESSIONS); stop one (svc session stop <id>) and try again.`,
    );
  }
}
