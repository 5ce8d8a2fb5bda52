import { sql, type Kysely } from 'kysely';
import { loadProjectFor, type ProjectRow } from '../accounts/access.js';
import type { ActorContext } from '../context.js';
import { olderThan, pageOf, type PageCursor } from '../db/newest-first.js';
import type { Database } from '../db/schema.js';
import { AppError, validationFailed } from '../errors.js';
import { manifestErrorsOf, syncProjectTriggers } from './sync-triggers.js';
import { DEFAULT_FIRES_PER_PAGE, FIRES_KEPT_MS, type TriggerFireRow, type TriggerRow } from './trigger-row.js';
import type { TriggerError } from '../manifest/index.js';

export interface TriggerListing {
  triggers: TriggerRow[];
  errors: TriggerError[];
  manifest: { path: string | null; commit: string | null };
}

/**
 * A project's triggers, each webhook trigger with its latest fire (duplicates aside) beside it: a delivery does
 * not write its trigger's row (record-fire.ts), so that is its `last_fired_at` unless the row holds a later one
 * (a fire kept only there once the fires are pruned, dispatch-fires.ts). One index probe a webhook trigger
 * (`trigger_fires_listing`, read newest first).
 */
function triggersWithLastFire(db: Kysely<Database>, projectId: string) {
  return db
    .selectFrom('triggers as t')
    .selectAll('t')
    .select(
      sql<string | null>`case when t.type = 'webhook' then (select f.fired_at from trigger_fires f
        where f.project_id = t.project_id and f.trigger_slug = t.slug and f.status <> 'duplicate' order by f.fired_at desc limit 1) end`.as('latest_fire_at'),
    )
    .where('t.project_id', '=', projectId);
}

function withLastFire({ latest_fire_at: latest, ...row }: TriggerRow & { latest_fire_at: string | null }): TriggerRow {
  if (latest === null || (row.last_fired_at !== null && Date.parse(row.last_fired_at) >= Date.parse(latest))) return row;
  return { ...row, last_fired_at: latest };
}

/** GET /v1/projects/:id/triggers: read from the default branch's tip (read again first if it moved). */
export async function listTriggers(ctx: ActorContext, projectId: string): Promise<TriggerListing> {
  const project = await loadProjectFor(ctx, projectId, 'project.read', 'list triggers');
  await syncProjectTriggers(ctx, project);
  const [triggers, manifest] = await Promise.all([
    triggersWithLastFire(ctx.db, project.id).orderBy('t.position').execute().then((rows) => rows.map(withLastFire)),
    ctx.db.selectFrom('trigger_manifests').selectAll().where('project_id', '=', project.id).executeTakeFirst(),
  ]);
  return { triggers, errors: manifestErrorsOf(manifest), manifest: { path: manifest?.path ?? null, commit: manifest?.commit_sha ?? null } };
}

export async function loadTrigger(ctx: ActorContext, projectId: string, slug: string, capability: 'project.read' | 'triggers.fire'): Promise<{ project: ProjectRow; trigger: TriggerRow }> {
  const project = await loadProjectFor(ctx, projectId, capability, capability === 'project.read' ? 'read triggers' : 'fire triggers');
  return { project, trigger: await triggerOf(ctx, project, slug) };
}

/** The project's trigger `slug`, from its default branch's tip (read again first if it moved); else a 404 that says why. */
async function triggerOf(ctx: ActorContext, project: ProjectRow, slug: string): Promise<TriggerRow> {
  // A branch that moved a moment ago (its event still on the way) is read now: one git process when it did not.
  await syncProjectTriggers(ctx, project);
  const found = await triggersWithLastFire(ctx.db, project.id).where('t.slug', '=', slug).executeTakeFirst();
  const trigger = found && withLastFire(found);
  if (!trigger) {
    // An entry the manifest names but that could not be read is not a trigger; the answer says why, not that it is missing.
    const manifest = await ctx.db.selectFrom('trigger_manifests').select(['errors', 'path']).where('project_id', '=', project.id).executeTakeFirst();
    const unreadable = manifestErrorsOf(manifest).find((error) => error.slug === slug);
    if (unreadable) {
      throw new AppError(
        'NOT_FOUND',
        `The entry for trigger ${JSON.stringify(slug)} in ${manifest?.path ?? 'the manifest'} on ${project.default_branch} could not be read, so it is not a trigger yet: ${unreadable.message}. Fix it on a branch and merge it.`,
      );
    }
    throw new AppError('NOT_FOUND', `No trigger ${JSON.stringify(slug)} in the manifest on ${project.default_branch} of project ${project.slug}; svc trigger ls lists them.`);
  }
  return trigger;
}

export interface FiresPage {
  fires: TriggerFireRow[];
  /** The id to pass as `before` for the next, older page; null when this page holds the oldest kept. */
  nextBefore: string | null;
}

/**
 * GET …/triggers/:slug/fires: newest first, the last 30 days, a page at a time. A trigger removed from the
 * manifest keeps its fires listed; a slug with neither a trigger nor fires is a 404.
 */
export async function listFires(ctx: ActorContext, projectId: string, slug: string, page: { limit?: number | undefined; before?: string | undefined } = {}): Promise<FiresPage> {
  const project = await loadProjectFor(ctx, projectId, 'project.read', 'read trigger fires');
  const limit = page.limit ?? DEFAULT_FIRES_PER_PAGE;
  const after = page.before === undefined ? undefined : await fireToContinueAfter(ctx.db, project.id, slug, page.before);
  const found = await newestFires(ctx.db, project.id, slug, limit, after);
  if (found.fires.length === 0 && !after) await triggerOf(ctx, project, slug);
  return found;
}

/** The fire a page continues after: one of this trigger's, else a 400 that says what to pass. */
async function fireToContinueAfter(db: Kysely<Database>, projectId: string, slug: string, before: string): Promise<PageCursor> {
  const found = await db
    .selectFrom('trigger_fires')
    .select(['fired_at', 'id'])
    .where('project_id', '=', projectId)
    .where('trigger_slug', '=', slug)
    .where('id', '=', before)
    .executeTakeFirst();
  if (!found) {
    const message = `${JSON.stringify(before.slice(0, 80))} names no fire of trigger ${JSON.stringify(slug)}; pass the next_before of the page before, or leave before out for the newest fires.`;
    throw validationFailed([{ path: '/before', message }], `The querystring request is invalid: /before: ${message}`);
  }
  return { at: found.fired_at, id: found.id };
}

/** A page of a trigger's fires (after `after`, when given), and where the next one continues, in a project the caller may read. */
export async function newestFires(db: Kysely<Database>, projectId: string, slug: string, limit: number, after?: PageCursor): Promise<FiresPage> {
  const { rows: fires, nextBefore } = pageOf(await recentFires(db, projectId, slug, limit + 1, after), limit);
  return { fires, nextBefore };
}

/** A trigger's fires of the last 30 days, newest first (after `after`, when given), in a project the caller may read. */
function recentFires(db: Kysely<Database>, projectId: string, slug: string, limit: number, after?: PageCursor): Promise<TriggerFireRow[]> {
  const since = new Date(Date.now() - FIRES_KEPT_MS).toISOString();
  let query = db.selectFrom('trigger_fires').selectAll().where('project_id', '=', projectId).where('trigger_slug', '=', slug).where('fired_at', '>=', since);
  if (after) query = query.where(olderThan('fired_at', after));
  return query.orderBy('fired_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
