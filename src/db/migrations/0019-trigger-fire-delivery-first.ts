import { sql } from 'kysely';
import type { MigrationFactory } from './column-types.js';

/**
 * The receiver looks up each delivery id it is sent (every GitHub delivery has one). The unique index began
 * with (project_id, trigger_slug), which `trigger_fires_listing` begins with too, and PostgreSQL, planning from
 * statistics older than a burst of fires, read the trigger's whole listing to find one id: 4 ms per lookup
 * after 5,000 fires, and about 100 deliveries a second. Led by the id, it is the only index a lookup by id can
 * use (record-fire.ts asks by id alone), and fires without an id (cron, manual) are not in it.
 */
export const triggerFireDeliveryFirst: MigrationFactory = () => ({
  async up(db) {
    await db.schema.dropIndex('trigger_fires_delivery').execute();
    await db.schema
      .createIndex('trigger_fires_delivery')
      .on('trigger_fires')
      .columns(['delivery_id', 'project_id', 'trigger_slug'])
      .unique()
      .where(sql.ref('delivery_id'), 'is not', null)
      .execute();
  },
});
