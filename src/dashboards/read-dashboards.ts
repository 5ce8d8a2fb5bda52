import type { ActorContext } from '../context.js';
import { AppError, notFound } from '../errors.js';
import { dashboardUrl, requirePublish, requireRead } from './access.js';
import { assertMayChange } from './ownership.js';
import { deleteDashboard, findHeader, findOwner, findVersion, listHeaders, listRecentOfProject, listVersions, oldestVersion, type DashboardHeader, type StoredVersion } from './store.js';
import { inTransaction } from '../db/in-transaction.js';

export type { DashboardHeader, StoredVersion };

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface DashboardSummary {
  slug: string;
  title: string;
  subtitle: string | null;
  group: string | null;
  groupOrder: number | null;
  order: number | null;
  tone: string | null;
  layout: string | null;
  version: number;
  updated_at: string;
  url: string;
}

export interface DashboardDocument {
  slug: string;
  version: number;
  /** The spec exactly as published (JSON text), so reads never re-serialise it. */
  specText: string;
  created_at: string;
  updated_at: string;
  url: string;
  /** When this version was published (its entity tag, see version-etag.ts). */
  publishedAt: string;
}

function checkSlug(slug: string): void {
  if (slug.length > 80) {
    throw new AppError('BAD_REQUEST', `A dashboard slug has at most 80 characters; this one has ${slug.length} (${JSON.stringify(`${slug.slice(0, 40)}…`)}).`);
  }
  if (!SLUG_PATTERN.test(slug)) {
    throw new AppError('BAD_REQUEST', `${JSON.stringify(slug)} is not a dashboard slug: use lower-case letters and digits separated by single hyphens.`);
  }
}

/** Absent values sort after present ones; ties fall through to the next key. */
function compareOptional<T>(a: T | null, b: T | null, compare: (x: T, y: T) => number): number {
  if (a === null) return b === null ? 0 : 1;
  if (b === null) return -1;
  return compare(a, b);
}

const byNumber = (x: number, y: number) => x - y;
const byText = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** groupOrder, group, order, title: sorted here so SQLite and PostgreSQL collations cannot differ. */
export function compareDashboards(a: DashboardHeader, b: DashboardHeader): number {
  return (
    compareOptional(a.group_order, b.group_order, byNumber) ||
    compareOptional(a.group_name, b.group_name, byText) ||
    compareOptional(a.sort_order, b.sort_order, byNumber) ||
    byText(a.title.toLowerCase(), b.title.toLowerCase()) ||
    byText(a.slug, b.slug)
  );
}

export function presentSummary(header: DashboardHeader, baseUrl: string): DashboardSummary {
  return {
    slug: header.slug,
    title: header.title,
    subtitle: header.subtitle,
    group: header.group_name,
    groupOrder: header.group_order,
    order: header.sort_order,
    tone: header.tone,
    layout: header.layout,
    version: header.version,
    updated_at: header.updated_at,
    url: dashboardUrl(baseUrl, header.slug),
  };
}

export async function listDashboards(ctx: ActorContext): Promise<DashboardSummary[]> {
  requireRead(ctx);
  const headers = await listHeaders(ctx.db, ctx.actor.accountId);
  return headers.sort(compareDashboards).map((h) => presentSummary(h, ctx.config.baseUrl));
}

/**
 * The dashboards a project published, most recently updated first: a project's overview page lists them.
 * Any reader of the account may see them in the full list anyway (listDashboards).
 */
export async function listProjectDashboards(ctx: ActorContext, input: { projectId: string; limit: number }): Promise<Array<Pick<DashboardHeader, 'slug' | 'title' | 'updated_at'>>> {
  requireRead(ctx);
  return listRecentOfProject(ctx.db, ctx.actor.accountId, input.projectId, input.limit);
}

/** Whether `slug` can name a dashboard at all. */
function isSlug(slug: string): boolean {
  return slug.length <= 80 && SLUG_PATTERN.test(slug);
}

/**
 * The dashboard's header (title, current version, times), or null when the account has none by this
 * name; a string that is no slug names none. For the web pages, which word their own "not found".
 */
export async function findDashboardHeader(ctx: ActorContext, slug: string): Promise<DashboardHeader | null> {
  requireRead(ctx);
  if (!isSlug(slug)) return null;
  return (await findHeader(ctx.db, ctx.actor.accountId, slug)) ?? null;
}

/** One version as published, or null when there is none (never published, pruned, or no such dashboard). */
export async function findDashboardVersion(ctx: ActorContext, slug: string, version: number): Promise<StoredVersion | null> {
  requireRead(ctx);
  if (!isSlug(slug)) return null;
  return (await findVersion(ctx.db, ctx.actor.accountId, slug, version)) ?? null;
}

/** The current version, or the given one. */
export async function getDashboard(ctx: ActorContext, slug: string, version?: number): Promise<DashboardDocument> {
  requireRead(ctx);
  checkSlug(slug);
  const header = await findHeader(ctx.db, ctx.actor.accountId, slug);
  if (!header) throw notFound('dashboard', slug);
  const wanted = version ?? header.version;
  const stored = await findVersion(ctx.db, ctx.actor.accountId, slug, wanted);
  if (!stored) throw await missingVersion(ctx, slug, wanted, header.version);
  return {
    slug,
    version: stored.version,
    specText: stored.spec,
    created_at: version === undefined ? header.created_at : stored.created_at,
    updated_at: version === undefined ? header.updated_at : stored.created_at,
    // A version asked for by number is shown by its own page, which stays as it was published.
    url: version === undefined ? dashboardUrl(ctx.config.baseUrl, slug) : `${dashboardUrl(ctx.config.baseUrl, slug)}/versions/${stored.version}`,
    publishedAt: stored.created_at,
  };
}

export async function getDashboardVersions(ctx: ActorContext, slug: string): Promise<Array<{ version: number; created_at: string }>> {
  requireRead(ctx);
  checkSlug(slug);
  const versions = await listVersions(ctx.db, ctx.actor.accountId, slug);
  if (versions.length === 0) throw notFound('dashboard', slug);
  return versions;
}

/** Why a version number finds nothing: it was pruned (see SVC_DASHBOARD_VERSIONS_KEPT), or never published. */
async function missingVersion(ctx: ActorContext, slug: string, wanted: number, latest: number): Promise<AppError> {
  const oldest = (await oldestVersion(ctx.db, { accountId: ctx.actor.accountId, slug })) ?? latest;
  if (wanted < oldest) {
    const kept = ctx.config.dashboardVersionsKept;
    return new AppError(
      'NOT_FOUND',
      `Version ${wanted} of dashboard "${slug}" was pruned: svc keeps the latest ${kept} version${kept === 1 ? '' : 's'} of each dashboard (SVC_DASHBOARD_VERSIONS_KEPT), here versions ${oldest} to ${latest}.`,
    );
  }
  return new AppError('NOT_FOUND', `Dashboard "${slug}" has no version ${wanted}; it has versions ${oldest} to ${latest}.`);
}

export async function removeDashboard(ctx: ActorContext, slug: string): Promise<void> {
  requirePublish(ctx, 'delete dashboards');
  checkSlug(slug);
  const key = { accountId: ctx.actor.accountId, slug };
  const deleted = await inTransaction(ctx, async ({ db: trx }) => {
    const owner = await findOwner(trx, key, ctx.dialect === 'postgres');
    if (!owner) return false;
    await assertMayChange(ctx, trx, slug, owner, 'delete');
    return deleteDashboard(trx, key);
  });
  if (!deleted) throw notFound('dashboard', slug);
}
