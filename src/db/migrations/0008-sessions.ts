import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './column-types.js';

/**
 * Sessions (spec 3, contract §6) on top of the minimal table change requests needed: the account they count
 * against, the sandbox record (provider, state, the provider's handle and where its daemon answers), the
 * execution lease and last activity the idle sweep reads, the runtime's root session, and the first prompt
 * (sent once per session). Tokens gain the session they belong to (sandbox and CLI tokens die with it) and
 * a push ref: a clone credential may push that one ref only.
 */
export const sessions: MigrationFactory = (dialect) => ({
  async up(db: Kysely<unknown>) {
    const t = columnTypes(dialect);
    const add = (column: string, type: 'text' | 'integer' | typeof t.timestamp) => db.schema.alterTable('sessions').addColumn(column, type).execute();
    await add('account_id', 'text');
    await add('last_activity_at', t.timestamp);
    await add('error', 'text');
    await add('runtime_session_id', 'text');
    await add('initial_prompt', 'text');
    await add('initial_prompt_sent_at', t.timestamp);
    await add('lease_expires_at', t.timestamp);
    await add('sandbox_provider', 'text');
    await add('sandbox_state', 'text');
    await add('sandbox_ref', 'text');
    await add('daemon_url', 'text');
    await db.schema.createIndex('sessions_account_status').on('sessions').columns(['account_id', 'status']).execute();

    await db.schema.alterTable('tokens').addColumn('session_id', 'text', (c) => c.references('sessions.id').onDelete('cascade')).execute();
    await db.schema.alterTable('tokens').addColumn('push_ref', 'text').execute();

    // Messages to a session, in order, until the runtime has taken them (a sandbox that is still booting
    // or asleep gets them when it is up): an outbox, so a message is never lost to a restart.
    await db.schema
      .createTable('session_messages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('text', t.bigText, (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('delivered_at', t.timestamp)
      .execute();
    await db.schema.createIndex('session_messages_pending').on('session_messages').columns(['session_id', 'status', 'seq']).execute();
  },
});
