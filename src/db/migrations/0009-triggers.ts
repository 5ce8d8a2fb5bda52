import type { Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './column-types.js';

/**
 * Triggers (spec 3, contract §7). The manifest on the default branch is the truth; `triggers` holds what
 * was read from it (one row per good entry, with the scheduler's `next_fire_at` and the `last_fired_at`
 * spec 3 keeps outside the manifest) and `trigger_manifests` the commit it was read from and its bad
 * entries. `trigger_fires` is the outbox of fires: a fire is a row before its session starts, so a crash
 * between the claim and the start still starts it, once; queued fires wait there for a free slot.
 */
export const triggers: MigrationFactory = (dialect) => ({
  async up(db: Kysely<unknown>) {
    const t = columnTypes(dialect);
    await db.schema
      .createTable('trigger_manifests')
      .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
      .addColumn('commit_sha', 'text')
      .addColumn('path', 'text')
      .addColumn('errors', t.json, (c) => c.notNull())
      .addColumn('synced_at', t.timestamp, (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('triggers')
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('enabled', t.bool, (c) => c.notNull())
      .addColumn('definition', t.json, (c) => c.notNull())
      .addColumn('next_fire_at', t.timestamp)
      .addColumn('last_fired_at', t.timestamp)
      .addColumn('created_at', t.timestamp, (c) => c.notNull())
      .addColumn('updated_at', t.timestamp, (c) => c.notNull())
      .addPrimaryKeyConstraint('triggers_pk', ['project_id', 'slug'])
      .execute();
    await db.schema.createIndex('triggers_due').on('triggers').columns(['next_fire_at']).execute();

    await db.schema
      .createTable('trigger_fires')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('trigger_slug', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('session_id', 'text')
      .addColumn('session_mode', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('fallback', 'text')
      .addColumn('reason', 'text')
      .addColumn('prompt', t.bigText, (c) => c.notNull())
      .addColumn('agent', 'text')
      .addColumn('model', 'text')
      .addColumn('actor_user_id', 'text', (c) => c.notNull())
      .addColumn('delivery_id', 'text')
      .addColumn('fired_at', t.timestamp, (c) => c.notNull())
      .addColumn('due_at', t.timestamp)
      .addColumn('started_at', t.timestamp)
      .addColumn('claimed_by', 'text')
      .addColumn('claimed_until', t.timestamp)
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('trigger_fires_listing').on('trigger_fires').columns(['project_id', 'trigger_slug', 'fired_at']).execute();
    await db.schema.createIndex('trigger_fires_waiting').on('trigger_fires').columns(['started_at', 'account_id', 'fired_at']).execute();
    await db.schema.createIndex('trigger_fires_delivery').on('trigger_fires').columns(['project_id', 'trigger_slug', 'delivery_id']).unique().execute();
  },
});
