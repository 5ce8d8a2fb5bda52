import type { MigrationFactory } from './column-types.js';
import { columnTypes } from './column-types.js';

/**
 * A failed session whose sandbox svc could not stop when it failed (its Docker engine did not answer) is
 * marked, so that whichever replica watches sandboxes next, also after svc restarted, stops the container
 * once the engine answers again.
 */
export const sandboxUnstopped: MigrationFactory = (dialect) => ({
  async up(db) {
    const t = columnTypes(dialect);
    await db.schema.alterTable('sessions').addColumn('sandbox_unstopped_since', t.timestamp).execute();
  },
});
