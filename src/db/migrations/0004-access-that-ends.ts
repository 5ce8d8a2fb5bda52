import { sql, type Kysely } from 'kysely';
import { columnTypes, type MigrationFactory } from './column-types.js';

/**
 * Credentials that die with access (contract §2): a user can be disabled (every token and web session of
 * theirs stops at once), and a project membership has a role, since `project.admin` (settings, secrets,
 * tokens, members, delete) is no longer held by every member. A project's creator administers it, as
 * they could before this migration.
 */
export const accessThatEnds: MigrationFactory = (dialect) => ({
  async up(db: Kysely<unknown>) {
    const types = columnTypes(dialect);
    await db.schema.alterTable('users').addColumn('disabled_at', types.timestamp).execute();
    await db.schema.alterTable('project_members').addColumn('role', 'text', (c) => c.notNull().defaultTo('member')).execute();
    await sql`update project_members set role = 'admin' where exists (select 1 from projects where projects.id = project_members.project_id and projects.created_by = project_members.user_id)`.execute(db);
    await db.schema.createIndex('tokens_user').on('tokens').column('user_id').execute();
  },
});
