import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type RawBuilder, type Selectable } from 'kysely';
import type { Services } from '../context.js';
import { isUniqueViolation, type Dialect } from '../db/database.js';
import type { MergeIntentsTable } from '../db/schema.js';

/**
 * A merge intent (the journal row written before base moves) is held by the process doing the merge: the
 * row names its owner, and the owner renews `heartbeat_ms` several times per heartbeat timeout for as long
 * as it works. A process that dies (killed, crashed, its machine gone) stops renewing, so within one
 * timeout its intent is known to be abandoned and any replica may claim and settle it, instead of waiting
 * out git's network time limit. A live merger keeps renewing however long its push takes, so its intent is
 * never taken from it.
 *
 * Times are the database's clock, never a replica's: replicas on several machines may disagree about the
 * time, but they all read the same database.
 */

export type MergeIntentRow = Selectable<MergeIntentsTable>;

/** What holding an intent needs of the server: its database and the heartbeat timeout. */
export type LeaseServices = Pick<Services, 'db' | 'dialect' | 'config'>;

/** How many renewals fit in one timeout: a few late ones (a busy database, a long pause) are survived. */
const RENEWALS_PER_TIMEOUT = 5;

/** The database's clock in milliseconds since 1970, as an SQL expression. */
export function databaseClockMs(dialect: Dialect): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`cast(round((julianday('now') - 2440587.5) * 86400000) as integer)`;
}

/** The condition "nothing has renewed this intent within the timeout" (rows from before heartbeats included). */
function abandoned(services: LeaseServices): RawBuilder<boolean> {
  return sql<boolean>`(heartbeat_ms is null or heartbeat_ms < ${databaseClockMs(services.dialect)} - ${services.config.mergeHeartbeatTimeoutMs})`;
}

/** A held intent. `stop` ends the renewals (the row stays until it is recorded, dropped or claimed). */
export interface IntentLease {
  readonly owner: string;
  /** Set once a renewal found the row gone or owned by someone else: the work must not go on as its owner. */
  readonly lost: boolean;
  stop(): void;
}

export function newIntentOwner(): string {
  return randomUUID();
}

/**
 * Writes the intent of a merge about to move base, held by a new owner from now on. Undefined when the
 * CR already has one (another merge of it is under way, or one died and is not settled yet).
 */
export async function writeMergeIntent(
  services: LeaseServices,
  intent: Omit<Insertable<MergeIntentsTable>, 'owner' | 'heartbeat_ms'>,
): Promise<IntentLease | undefined> {
  const owner = newIntentOwner();
  try {
    await services.db
      .insertInto('merge_intents')
      .values({ ...intent, owner, heartbeat_ms: databaseClockMs(services.dialect) })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  return holdIntent(services, intent.cr_id, owner);
}

/** Renews the intent of `crId` held by `owner` until stopped. */
export function holdIntent(services: LeaseServices, crId: string, owner: string): IntentLease {
  let lost = false;
  let renewing: Promise<void> | undefined;
  const renew = async (): Promise<void> => {
    try {
      const result = await services.db
        .updateTable('merge_intents')
        .set({ heartbeat_ms: databaseClockMs(services.dialect) })
        .where('cr_id', '=', crId)
        .where('owner', '=', owner)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) lost = true;
    } catch {
      // A renewal that fails (the database busy or briefly unreachable) is retried at the next tick; the
      // timeout leaves room for a few.
    }
  };
  const timer = setInterval(() => {
    // One renewal at a time: a slow database must not pile them up.
    renewing ??= renew().finally(() => (renewing = undefined));
  }, Math.max(1, Math.floor(services.config.mergeHeartbeatTimeoutMs / RENEWALS_PER_TIMEOUT)));
  // A pending renewal must not keep a stopping process alive; a merge in flight keeps it alive anyway.
  timer.unref();
  return {
    owner,
    get lost() {
      return lost;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * Takes over an abandoned intent: it becomes `owner`'s, with a fresh heartbeat, and is renewed until
 * stopped. Undefined when the intent is alive (renewed within the timeout), already claimed by another
 * replica, or gone. The update is one statement, so of several replicas claiming at once only one wins.
 */
export async function claimAbandonedIntent(services: LeaseServices, intent: MergeIntentRow, owner: string): Promise<IntentLease | undefined> {
  const result = await services.db
    .updateTable('merge_intents')
    .set({ owner, heartbeat_ms: databaseClockMs(services.dialect) })
    .where('cr_id', '=', intent.cr_id)
    .where('merge_commit_sha', '=', intent.merge_commit_sha)
    .where('owner', intent.owner === null ? 'is' : '=', intent.owner)
    .where(abandoned(services))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return undefined;
  return holdIntent(services, intent.cr_id, owner);
}

/** Intents nothing renews any more, oldest first: their processes died mid-merge. */
export async function listAbandonedIntents(services: LeaseServices): Promise<MergeIntentRow[]> {
  return services.db.selectFrom('merge_intents').selectAll().where(abandoned(services)).orderBy('created_at').execute();
}
