import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database, DashboardsTable } from '../db/schema.js';

/** A dashboard's header row (everything but the account, which every query already fixes). */
export type DashboardHeader = Omit<Selectable<DashboardsTable>, 'account_id'>;

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

export async function deleteDashboard(db: Kysely<Database>, accountId: string, slug: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('dashboard_versions').where('account_id', '=', accountId).where('slug', '=', slug).execute();
    const result = await trx.deleteFrom('dashboards').where('account_id', '=', accountId).where('slug', '=', slug).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
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
): Promise<VersionStamp | undefined> {
  const atVersion = expectedVersion === undefined ? sql`` : sql` AND version = ${expectedVersion}`;
  const { rows } = await sql<VersionStamp>`
    UPDATE dashboards SET title = ${columns.title}, subtitle = ${columns.subtitle}, group_name = ${columns.group_name},
      group_order = ${columns.group_order}, sort_order = ${columns.sort_order}, tone = ${columns.tone}, layout = ${columns.layout},
      version = version + 1, updated_at = ${now}
    WHERE account_id = ${key.accountId} AND slug = ${key.slug}${atVersion}
    RETURNING version, created_at, updated_at`.execute(trx);
  return rows[0];
}

/** Creates the dashboard at version 1; undefined when the slug was taken meanwhile. */
export async function insertHeader(trx: Transaction<Database>, key: DashboardKey, columns: HeaderColumns, now: string): Promise<VersionStamp | undefined> {
  const { rows } = await sql<VersionStamp>`
    INSERT INTO dashboards (account_id, slug, title, subtitle, group_name, group_order, sort_order, tone, layout, version, created_at, updated_at)
    VALUES (${key.accountId}, ${key.slug}, ${columns.title}, ${columns.subtitle}, ${columns.group_name}, ${columns.group_order}, ${columns.sort_order},
      ${columns.tone}, ${columns.layout}, 1, ${now}, ${now})
    ON CONFLICT (account_id, slug) DO NOTHING
    RETURNING version, created_at, updated_at`.execute(trx);
  return rows[0];
}

export async function insertVersion(trx: Transaction<Database>, key: DashboardKey, version: number, spec: string, now: string): Promise<void> {
  await sql`INSERT INTO dashboard_versions (account_id, slug, version, spec, created_at) VALUES (${key.accountId}, ${key.slug}, ${version}, ${spec}, ${now})`.execute(trx);
}
