import type { Kysely } from 'kysely';
import type { MigrationFactory } from './column-types.js';

/**
 * A merge intent is held by the process that wrote it: `owner` names that merge, and `heartbeat_ms` (the
 * database's clock, in milliseconds since 1970) is renewed every few seconds while it runs. An intent whose
 * heartbeat stopped belongs to a process that died, and any replica settles it in seconds instead of
 * waiting out git's network time limit. Rows written before this migration have neither: nothing renews
 * them, so they count as abandoned.
 */
export const mergeIntentHeartbeat: MigrationFactory = (dialect) => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('merge_intents').addColumn('owner', 'text').execute();
    await db.schema
      .alterTable('merge_intents')
      .addColumn('heartbeat_ms', dialect === 'postgres' ? 'bigint' : 'integer')
      .execute();
  },
});
