import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './column-types.js';

/**
 * Change requests (spec 2) and what they lean on: a minimal `sessions` table (contract §6 keys) so a CR can
 * name its originating session, the per-project number counter, the feedback outbox and the merge journal.
 */
export const changeRequests: MigrationFactory = (dialect) => ({
  async up(db: Kysely<unknown>) {
    const t = columnTypes(dialect);

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('base_ref', 'text', (c) => c.notNull())
      .addColumn('branch', 'text', (c) => c.notNull())
      .addColumn('agent', 'text')
      .addColumn('model', 'text')
      .addColumn('trigger_slug', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_project').on('sessions').columns(['project_id', 'created_at']).execute();

    // One row per project holding the last number handed out. Incremented inside the insert's transaction
    // (an upsert that takes the row lock on PostgreSQL), so numbers are unique across replicas and, since
    // the counter never goes down, never handed out twice.
    await db.schema
      .createTable('change_request_counters')
      .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
      .addColumn('last_number', 'integer', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('change_requests')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('base_ref', 'text', (c) => c.notNull())
      .addColumn('head_ref', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('head_commit_sha', 'text')
      .addColumn('base_commit_sha', 'text')
      .addColumn('origin_session_id', 'text', (c) => c.references('sessions.id').onDelete('set null'))
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('merged_at', t.timestamp)
      .addColumn('merged_by', 'text')
      .addColumn('merge_commit_sha', 'text')
      .addColumn('closed_at', t.timestamp)
      .addColumn('closed_by', 'text')
      .addColumn('metadata', t.json, (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addUniqueConstraint('change_requests_project_number', ['project_id', 'number'])
      .execute();
    await db.schema.createIndex('change_requests_project_status').on('change_requests').columns(['project_id', 'status']).execute();
    // Like GitHub and Gitea: one open CR per (head, base) pair. A second `svc cr open` for the same branch
    // is answered with the existing CR's number instead of a duplicate; the database enforces it atomically.
    await db.schema
      .createIndex('change_requests_one_open_per_branch_pair')
      .on('change_requests')
      .columns(['project_id', 'head_ref', 'base_ref'])
      .unique()
      .where(sql.ref('status'), '=', 'open')
      .execute();
    await db.schema.createIndex('change_requests_origin_session').on('change_requests').column('origin_session_id').execute();

    // The outbox of request-changes feedback for the originating session's agent: a row, not a promise in
    // memory, so it survives restarts until the sessions capability delivers it.
    await db.schema
      .createTable('feedback_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('cr_id', 'text', (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
      .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('by', 'text', (c) => c.notNull())
      .addColumn('at', t.timestamp, (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('feedback_deliveries_pending').on('feedback_deliveries').columns(['status', 'created_at']).execute();

    // The merge journal: written before base moves, deleted in the transaction that records the merge.
    // A row left behind by a crash is settled at startup from the repository's state (repairInterruptedMerges).
    // One row per CR at a time: a second concurrent merge of the same CR is refused instead of racing.
    await db.schema
      .createTable('merge_intents')
      .addColumn('cr_id', 'text', (c) => c.primaryKey().references('change_requests.id').onDelete('cascade'))
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('base_ref', 'text', (c) => c.notNull())
      .addColumn('base_sha_before', 'text', (c) => c.notNull())
      .addColumn('head_sha', 'text', (c) => c.notNull())
      .addColumn('merge_commit_sha', 'text', (c) => c.notNull())
      .addColumn('fast_forward', t.bool, (c) => c.notNull())
      .addColumn('merged_by', 'text', (c) => c.notNull())
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .execute();
  },
});
