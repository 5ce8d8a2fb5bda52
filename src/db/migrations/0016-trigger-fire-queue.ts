import type { MigrationFactory } from './column-types.js';

/**
 * Each fire that needs a session slot asks how many fires of its account wait (up to a bound) and the
 * dispatcher asks for an account's oldest waiting fire. `trigger_fires_waiting` (started_at, account_id, …)
 * found the account's unstarted fires but read every row to check its status: about 100 row reads per fire
 * once a queue had formed. This index answers both from its own entries, in fire order.
 */
export const triggerFireQueue: MigrationFactory = () => ({
  async up(db) {
    await db.schema.createIndex('trigger_fires_queue').on('trigger_fires').columns(['account_id', 'status', 'started_at', 'fired_at']).execute();
  },
});
