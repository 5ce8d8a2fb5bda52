/**
 * Leases in the shared database: a named piece of work held by one replica until its lease runs out. The
 * claim is one conditional UPDATE (held by nobody, held by me, or run out), which both SQLite and
 * PostgreSQL apply atomically, so two replicas never both believe they hold it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

export interface LeaseClaim {
  name: string;
  holder: string;
  ttlMs: number;
  now: Date;
}

/** Takes or renews the lease; true when `holder` holds it until `now + ttlMs`. */
export async function claimLease(db: Kysely<Database>, claim: LeaseClaim): Promise<boolean> {
  const nowIso = claim.now.toISOString();
  const until = new Date(claim.now.getTime() + claim.ttlMs).toISOString();
  await db
    .insertInto('task_leases')
    .values({ name: claim.name, holder: claim.holder, expires_at: nowIso })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const taken = await db
    .updateTable('task_leases')
    .set({ holder: claim.holder, expires_at: until })
    .where('name', '=', claim.name)
    .where((eb) => eb.or([eb('holder', '=', claim.holder), eb('expires_at', '<=', nowIso)]))
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** Gives the lease up at once (on a clean stop), so another replica need not wait for it to run out. */
export async function releaseLease(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db.deleteFrom('task_leases').where('name', '=', name).where('holder', '=', holder).execute();
}
