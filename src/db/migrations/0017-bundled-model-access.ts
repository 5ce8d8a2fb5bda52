import type { MigrationFactory } from './column-types.js';
import { columnTypes } from './column-types.js';

/**
 * Bundled model access (spec 3, SVC_LLM_API_KEY and SVC_LLM_BASE_URL): a project opts in and an
 * administrator entitles a user; both start off, so nothing changes for existing projects and users.
 */
export const bundledModelAccess: MigrationFactory = (dialect) => ({
  async up(db) {
    const t = columnTypes(dialect);
    const off = dialect === 'postgres' ? false : 0;
    await db.schema.alterTable('projects').addColumn('bundled_model_access', t.bool, (c) => c.notNull().defaultTo(off)).execute();
    await db.schema.alterTable('users').addColumn('model_access', t.bool, (c) => c.notNull().defaultTo(off)).execute();
  },
});
