import type { Transaction } from 'kysely';
import type { ActorContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { nowIso } from '../db/values.js';
import { AppError, concurrentPublish } from '../errors.js';
import { dashboardUrl, requirePublish } from './access.js';
import { requireValidSpec } from './require-valid-spec.js';
import { assertMayChange, publishingOwner } from './ownership.js';
import {
  findHeader,
  findOwner,
  findVersion,
  insertHeader,
  insertVersion,
  pruneVersions,
  takeNextVersion,
  type DashboardKey,
  type HeaderColumns,
  type PublishingOwner,
  type VersionStamp,
} from './store.js';
import { publishedTag } from './version-etag.js';

export interface PublishInput {
  /** The body as the client sent it: checked (on a worker thread when large) and stored verbatim. */
  body: Buffer;
  /** What `If-Match` names, when given. */
  expectedVersion?: ExpectedVersion | undefined;
}

/**
 * `If-Match`: any existing version (`*`), or one version, and with an entity tag of a read also when it
 * was published (a version number alone also matches a dashboard deleted and published again).
 */
export type ExpectedVersion = '*' | { version: number; publishedTag?: string };

export interface PublishResult {
  slug: string;
  version: number;
  url: string;
  created: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * Creates or replaces the dashboard named by the spec's slug. Validation happens before any write, so a
 * rejected replace leaves the previous version served. Each publish stores a new immutable version.
 */
export async function publishDashboard(ctx: ActorContext, input: PublishInput): Promise<PublishResult> {
  requirePublish(ctx, 'publish dashboards');
  const spec = await requireValidSpec(ctx, input.body, 'publish');
  const { owner, text: specText } = await publishingOwner(ctx, spec);
  const accountId = ctx.actor.accountId;
  const now = nowIso();
  const kept = ctx.config.dashboardVersionsKept;

  const key: DashboardKey = { accountId, slug: spec.slug };
  // Administrators may replace any dashboard: no need to ask who owns it.
  const mayReplaceAny = ctx.actor.kind === 'user' && ctx.actor.isAdmin;

  // Publishes that arrive together may share the transaction (group commit): each runs alone in it, in turn.
  const outcome = await ctx.transactions.run(async (trx) => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      if (!mayReplaceAny) {
        const current = await findOwner(trx, key, ctx.dialect === 'postgres');
        if (current) await assertMayChange(ctx, trx, spec.slug, current, 'replace');
      }
      const replaced = await replaceExisting(trx, key, spec.columns, now, input.expectedVersion, owner);
      if (replaced) {
        await insertVersion(trx, key, replaced.version, specText, now);
        // Versions run on from the highest; only the newest `kept` are stored.
        if (replaced.version > kept) await pruneVersions(trx, key, replaced.version - kept + 1);
        return { ...replaced, created: false };
      }
      if (input.expectedVersion !== undefined) {
        const named = input.expectedVersion === '*' ? 'a version' : `version ${input.expectedVersion.version}`;
        throw new AppError('VERSION_MISMATCH', `If-Match names ${named}, but no dashboard "${spec.slug}" exists yet; publish without If-Match to create it.`);
      }
      const inserted = await insertHeader(trx, key, spec.columns, now, owner);
      if (inserted) {
        await insertVersion(trx, key, 1, specText, now);
        return { ...inserted, created: true };
      }
      // Another publisher created the slug between our update and insert: go round and replace it.
    }
    throw concurrentPublish(`Dashboard "${spec.slug}" is being published concurrently; retry the request.`);
  });

  ctx.events.emit('dashboard.published', { accountId, slug: spec.slug, createdAt: outcome.created_at, version: outcome.version });
  return {
    slug: spec.slug,
    version: outcome.version,
    url: dashboardUrl(ctx.config.baseUrl, spec.slug),
    created: outcome.created,
    created_at: outcome.created_at,
    updated_at: outcome.updated_at,
  };
}

/** Bumps the version of an existing dashboard (row-locked by the UPDATE); undefined when there is none. */
async function replaceExisting(
  trx: Transaction<Database>,
  key: DashboardKey,
  columns: HeaderColumns,
  now: string,
  expected: ExpectedVersion | undefined,
  owner: PublishingOwner,
): Promise<VersionStamp | undefined> {
  const expectedVersion = expected === undefined || expected === '*' ? undefined : expected;
  const row = await takeNextVersion(trx, key, columns, now, expectedVersion?.version, owner);
  if (!expectedVersion) return row;
  if (row) {
    // The UPDATE is undone with the transaction when the version is another publish's.
    if (expectedVersion.publishedTag !== undefined) await assertSamePublish(trx, key, expectedVersion.version, expectedVersion.publishedTag);
    return row;
  }
  const current = await findHeader(trx, key.accountId, key.slug);
  if (current) {
    throw new AppError(
      'VERSION_MISMATCH',
      `Dashboard "${key.slug}" is at version ${current.version}, not ${expectedVersion.version} as If-Match says; fetch it again, reapply your change and publish with If-Match: "${current.version}".`,
      { current_version: current.version },
    );
  }
  return undefined;
}

/** An entity tag from before the dashboard was deleted and published again names another document. */
async function assertSamePublish(trx: Transaction<Database>, key: DashboardKey, version: number, publishedTagExpected: string): Promise<void> {
  const stored = await findVersion(trx, key.accountId, key.slug, version);
  if (stored && publishedTag(stored.created_at) === publishedTagExpected) return;
  throw new AppError(
    'VERSION_MISMATCH',
    `If-Match names version ${version} of a dashboard "${key.slug}" that was deleted since; this one was published again. Fetch it again, reapply your change and publish with its ETag.`,
    { current_version: version },
  );
}
