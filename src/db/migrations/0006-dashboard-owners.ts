import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './column-types.js';

/**
 * Who may replace or delete a dashboard (contract §3): the project it belongs to, or, without one, the
 * user who published it. Dashboards published before this migration keep the project their spec's
 * `svc.projectId` names when that project exists in their account; their publisher is unknown (null),
 * so one without a project is left to administrators.
 */
export const dashboardOwners: MigrationFactory = () => ({
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('dashboards').addColumn('project_id', 'text').execute();
    await db.schema.alterTable('dashboards').addColumn('published_by', 'text').execute();
    const { rows } = await sql<{ account_id: string; slug: string; spec: string }>`
      SELECT d.account_id, d.slug, v.spec FROM dashboards d
      JOIN dashboard_versions v ON v.account_id = d.account_id AND v.slug = d.slug AND v.version = d.version
      WHERE v.spec LIKE ${'%projectId%'}`.execute(db);
    for (const row of rows) {
      const projectId = specProjectId(row.spec);
      if (projectId === undefined) continue;
      await sql`
        UPDATE dashboards SET project_id = ${projectId}
        WHERE account_id = ${row.account_id} AND slug = ${row.slug}
          AND EXISTS (SELECT 1 FROM projects p WHERE p.id = ${projectId} AND p.account_id = ${row.account_id})`.execute(db);
    }
  },
});

function specProjectId(specText: string): string | undefined {
  try {
    const spec = JSON.parse(specText) as { svc?: { projectId?: unknown } } | null;
    const projectId = spec?.svc?.projectId;
    return typeof projectId === 'string' ? projectId : undefined;
  } catch {
    return undefined;
  }
}
