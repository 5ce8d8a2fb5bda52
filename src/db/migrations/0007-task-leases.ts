import { columnTypes, type MigrationFactory } from './column-types.js';

/**
 * Background work that one replica at a time must do (an idle sweep, a clean-up) is held through a lease
 * row: whichever replica renews it before it runs out keeps it, and a replica that dies loses it when it
 * runs out. A row in the shared database, never an in-process lock, so every replica and worker agrees.
 */
export const taskLeases: MigrationFactory = (dialect) => ({
  async up(db) {
    const types = columnTypes(dialect);
    await db.schema
      .createTable('task_leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('expires_at', types.timestamp, (c) => c.notNull())
      .execute();
  },
});
