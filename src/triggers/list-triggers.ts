import { loadProjectFor } from '../accounts/access.js';
import type { ActorContext } from '../context.js';
import { AppError } from '../errors.js';
import { manifestErrorsOf, syncProjectTriggers } from './sync-triggers.js';
import { FIRES_KEPT_MS, type TriggerFireRow, type TriggerRow } from './trigger-row.js';
import type { TriggerError } from '../manifest/index.js';


export interface TriggerListing {
  triggers: TriggerRow[];
  errors: TriggerError[];
  manifest: { path: string | null; commit: string | null };
}

/** GET /v1/projects/:id/triggers: read from the default branch's tip (read again first if it moved). */
export async function listTriggers(ctx: ActorContext, projectId: string): Promise<TriggerListing> {
  const project = await loadProjectFor(ctx, projectId, 'project.read', 'list triggers');
  await syncProjectTriggers(ctx, project);
  const [triggers, manifest] = await Promise.all([
    ctx.db.selectFrom('triggers').selectAll().where('project_id', '=', project.id).orderBy('position').execute(),
    ctx.db.selectFrom('trigger_manifests').selectAll().where('project_id', '=', project.id).executeTakeFirst(),
  ]);
  return { triggers, errors: manifestErrorsOf(manifest), manifest: { path: manifest?.path ?? null, commit: manifest?.commit_sha ?? null } };
}

export async function loadTrigger(ctx: ActorContext, projectId: string, slug: string, capability: 'project.read' | 'triggers.fire'): Promise<{ project: Awaited<ReturnType<typeof loadProjectFor>>; trigger: TriggerRow }> {
  const project = await loadProjectFor(ctx, projectId, capability, capability === 'project.read' ? 'read triggers' : 'fire triggers');
  // A branch that moved a moment ago (its event still on the way) is read now: one git process when it did not.
  await syncProjectTriggers(ctx, project);
  const trigger = await ctx.db.selectFrom('triggers').selectAll().where('project_id', '=', project.id).where('slug', '=', slug).executeTakeFirst();
  if (!trigger) {
    throw new AppError('NOT_FOUND', `No trigger ${JSON.stringify(slug)} in the manifest on ${project.default_branch} of project ${project.slug}; svc trigger ls lists them.`);
  }
  return { project, trigger };
}

/** GET …/triggers/:slug/fires: newest first, the last 30 days. */
export async function listFires(ctx: ActorContext, projectId: string, slug: string, limit = 100): Promise<TriggerFireRow[]> {
  const project = await loadProjectFor(ctx, projectId, 'project.read', 'read trigger fires');
  const since = new Date(Date.now() - FIRES_KEPT_MS).toISOString();
  return ctx.db
    .selectFrom('trigger_fires')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('trigger_slug', '=', slug)
    .where('fired_at', '>=', since)
    .orderBy('fired_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
