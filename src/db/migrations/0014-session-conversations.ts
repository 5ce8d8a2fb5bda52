import type { MigrationFactory } from './column-types.js';
import { columnTypes } from './column-types.js';

/**
 * The conversation of a session as its runtime last told it, kept by svc: the runtime's copy lives in the
 * sandbox and cannot be read while the sandbox is stopped or after it is deleted. One row per session,
 * replaced whenever svc captures it again (at every stop); the JSON is bounded by the writer.
 */
export const sessionConversations: MigrationFactory = (dialect) => ({
  async up(db) {
    const t = columnTypes(dialect);
    await db.schema
      .createTable('session_conversations')
      .addColumn('session_id', 'text', (c) => c.primaryKey().references('sessions.id').onDelete('cascade'))
      .addColumn('messages', t.bigText, (c) => c.notNull())
      .addColumn('omitted_messages', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('captured_at', t.timestamp, (c) => c.notNull())
      .execute();
  },
});
