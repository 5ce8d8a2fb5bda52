import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database, DashboardsTable } from '../db/schema.js';

/** A dashboard's header row (everything but the account, which every query already fixes, and its owner). */
export type DashboardHeader = Omit<Selectable<DashboardsTable>, 'account_id' | 'project_id' | 'published_by'>;

/**
 * Who a dashboard belongs to (contract §3): its project while that project exists, else the user who
 * published it; with their slug and name for messages.
 */
export interface DashboardOwner {
  projectId: string | null;
  projectSlug: string | null;
  publishedBy: string | null;
  publisherName: string | null;
}

/** The new owner a publish records: the project, and the user who publishes. */
export interface PublishingOwner {
  projectId: string | null;
  userId: string;
}

export interface StoredVersion {
  version: number;
  spec: string;
  created_at: string;
}

type Db = Kysely<Database> | Transaction<Database>;

/** A dashboard, by the account it belongs to and its slug. */
export interface DashboardKey {
  accountId: string;
  slug: string;
}

/** The columns of a dashboard's header that come from its spec. */
export type HeaderColumns = Pick<DashboardsTable, 'title' | 'subtitle' | 'group_name' | 'group_order' | 'sort_order' | 'tone' | 'layout'>;

export interface VersionStamp {
  version: number;
  created_at: string;
  updated_at: string;
}

const HEADER_COLUMNS = [
  'slug',
  'title',
  'subtitle',
  'group_name',
  'group_order',
  'sort_order',
  'tone',
  'layout',
  'version',
  'created_at',
  'updated_at',
] as const;

export async function findHeader(db: Db, accountId: string, slug: string): Promise<DashboardHeader | undefined> {
  return db.selectFrom('dashboards').select(HEADER_COLUMNS).where('account_id', '=', accountId).where('slug', '=', slug).executeTakeFirst();
}

/** Whether any account has a dashboard (across accounts: a server start asks it once). */
export async function anyDashboard(db: Db): Promise<boolean> {
  return (await db.selectFrom('dashboards').select('slug').limit(1).executeTakeFirst()) !== undefined;
}

export async function listHeaders(db: Db, accountId: string): Promise<DashboardHeader[]> {
  return db.selectFrom('dashboards').select(HEADER_COLUMNS).where('account_id', '=', accountId).execute();
}

/** The dashboards a project published, most recently updated first. */
export async function listRecentOfProject(db: Db, accountId: string, projectId: string, limit: number): Promise<Array<Pick<DashboardHeader, 'slug' | 'title' | 'updated_at'>>> {
  return db
    .selectFrom('dashboards')
    .select(['slug', 'title', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('project_id', '=', projectId)
    .orderBy('updated_at', 'desc')
    .limit(limit)
    .execute();
}

export async function findVersion(db: Db, accountId: string, slug: string, version: number): Promise<StoredVersion | undefined> {
  return db
    .selectFrom('dashboard_versions')
    .select(['version', 'spec', 'created_at'])
    .where('account_id', '=', accountId)
    .where('slug', '=', slug)
    .where('version', '=', version)
    .executeTakeFirst();
}

export async function listVersions(db: Db, accountId: string, slug: string): Promise<Array<{ version: number; created_at: string }>> {
  return db
    .selectFrom('dashboard_versions')
    .select(['version', 'created_at'])
    .where('account_id', '=', accountId)
    .where('slug', '=', slug)
    .orderBy('version', 'desc')
    .execute();
}

/**
 * The owner of a dashboard, or undefined when there is none. `lock` keeps the row from changing owner
 * until the transaction ends (PostgreSQL; SQLite has one writer, whose transaction already excludes others).
 */
export async function findOwner(db: Db, key: DashboardKey, lock: boolean): Promise<DashboardOwner | undefined> {
  const forUpdate = lock ? sql` FOR UPDATE OF d` : sql``;
  const { rows } = await sql<DashboardOwner>`
    SELECT p.id AS "projectId", p.slug AS "projectSlug", d.published_by AS "publishedBy", u.name AS "publisherName"
    FROM dashboards d
    LEFT JOIN projects p ON p.id = d.project_id AND p.account_id = d.account_id
    LEFT JOIN users u ON u.id = d.published_by
    WHERE d.account_id = ${key.accountId} AND d.slug = ${key.slug}${forUpdate}`.execute(db);
  return rows[0];
}

export async function deleteDashboard(trx: Transaction<Database>, key: DashboardKey): Promise<boolean> {
  await trx.deleteFrom('dashboard_versions').where('account_id', '=', key.accountId).where('slug', '=', key.slug).execute();
  const result = await trx.deleteFrom('dashboards').where('account_id', '=', key.accountId).where('slug', '=', key.slug).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes the versions before `firstKept`; returns how many went. */
export async function pruneVersions(trx: Transaction<Database>, key: DashboardKey, firstKept: number): Promise<number> {
  const result = await trx
    .deleteFrom('dashboard_versions')
    .where('account_id', '=', key.accountId)
    .where('slug', '=', key.slug)
    .where('version', '<', firstKept)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The oldest version still kept, or undefined when the dashboard has none. */
export async function oldestVersion(db: Db, key: DashboardKey): Promise<number | undefined> {
  const row = await db
    .selectFrom('dashboard_versions')
    .select((eb) => eb.fn.min('version').as('oldest'))
    .where('account_id', '=', key.accountId)
    .where('slug', '=', key.slug)
    .executeTakeFirst();
  return row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest);
}

// The three writes of a publish, run thousands of times a second, are SQL text rather than Kysely's
// query builder: building and compiling an UPDATE with the builder took 20 µs, as long as SQLite took
// to run it. Both dialects take this SQL as it is.

/**
 * Takes the next version of an existing dashboard and its new header, only at `expectedVersion` when
 * given; undefined when no such row exists. The UPDATE locks the row until the transaction ends.
 */
export async function takeNextVersion(
  trx: Transaction<Database>,
  key: DashboardKey,
  columns: HeaderColumns,
  now: string,
  expectedVersion: number | undefined,
  owner: PublishingOwner,
): Promise<VersionStamp | undefined> {
  const atVersion = expectedVersion === undefined ? sql`` : sql` AND version = ${expectedVersion}`;
  // A publish that takes a dashboard out of its project makes the publisher its owner.
  const publisher = owner.projectId === null ? sql`CASE WHEN project_id IS NULL THEN published_by ELSE ${owner.userId} END` : sql`published_by`;
  const { rows } = await sql<VersionStamp>`
    UPDATE dashboards SET title = ${columns.title}, subtitle = ${columns.subtitle}, group_name = ${columns.group_name},
      group_order = ${columns.group_order}, sort_order = ${columns.sort_order}, tone = ${columns.tone}, layout = ${columns.layout},
      version = version + 1, updated_at = ${now}, published_by = ${publisher}, project_id = ${owner.projectId}
    WHERE account_id = ${key.accountId} AND slug = ${key.slug}${atVersion}
    RETURNING version, created_at, updated_at`.execute(trx);
  return rows[0];
}

/** Creates the dashboard at version 1; undefined when the slug was taken meanwhile. */
export async function insertHeader(
  trx: Transaction<Database>,
  key: DashboardKey,
  columns: HeaderColumns,
  now: string,
  owner: PublishingOwner,
): Promise<VersionStamp | undefined> {
  const { rows } = await sql<VersionStamp>`
    INSERT INTO dashboards (account_id, slug, title, subtitle, group_name, group_order, sort_order, tone, layout, version, created_at, updated_at, project_id, published_by)
    VALUES (${key.accountId}, ${key.slug}, ${columns.title}, ${columns.subtitle}, ${columns.group_name}, ${columns.group_order}, ${columns.sort_order},
      ${columns.tone}, ${columns.layout}, 1, ${now}, ${now}, ${owner.projectId}, ${owner.userId})
    ON CONFLICT (account_id, slug) DO NOTHING
    RETURNING version, created_at, updated_at`.execute(trx);
  return rows[0];
}

export async function insertVersion(trx: Transaction<Database>, key: DashboardKey, version: number, spec: string, now: string): Promise<void> {
  await sql`INSERT INTO dashboard_versions (account_id, slug, version, spec, created_at) VALUES (${key.accountId}, ${key.slug}, ${version}, ${spec}, ${now})`.execute(trx);
}
