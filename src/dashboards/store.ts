import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, DashboardsTable } from '../db/schema.js';

/** A dashboard's header row (everything but the account, which every query already fixes). */
export type DashboardHeader = Omit<Selectable<DashboardsTable>, 'account_id'>;

export interface StoredVersion {
  version: number;
  spec: string;
  created_at: string;
}

type Db = Kysely<Database> | Transaction<Database>;

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
