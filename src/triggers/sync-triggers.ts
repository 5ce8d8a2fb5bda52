/**
 * The trigger set of a project is the manifest on its default branch (contract §7). It is read again
 * whenever that branch moves (a merge, a push creating it, a mirror's fetch) and stored with what the
 * scheduler needs: a trigger whose schedule is unchanged keeps its next fire, so a manifest edit to its
 * prompt neither skips nor repeats one; a new or rescheduled trigger is planned from now.
 */
import { isDeepStrictEqual } from 'node:util';
import { sql, type Insertable } from 'kysely';
import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import type { TriggersTable } from '../db/schema.js';
import { readBool, readJson } from '../db/values.js';
import { readFilesAtRef, resolveRef } from '../git/index.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { MANIFEST_FILENAMES, readManifestFromTree, type NormalizedTrigger, type TriggerError } from '../manifest/index.js';
import { nextFireAt } from './next-fire.js';
import { definitionOf } from './trigger-row.js';

/** New triggers per insert: a manifest of thousands is written in a few statements, within the drivers' parameter limits. */
const INSERT_CHUNK = 500;

export interface TriggerSyncResult {
  /** False when the stored set was already read from the branch's tip. */
  changed: boolean;
}

/** What decides when a trigger fires: a change to any of it plans the trigger again from now. */
function scheduleKey(trigger: NormalizedTrigger): string {
  return trigger.type === 'cron' ? JSON.stringify([trigger.type, trigger.enabled, trigger.cron, trigger.run_at, trigger.timezone]) : JSON.stringify([trigger.type, trigger.enabled]);
}

export async function syncProjectTriggers(services: Services, project: ProjectRow, now: Date = new Date()): Promise<TriggerSyncResult> {
  const repo = await openProjectRepository(services, project);
  const tip = await resolveRef(repo.path, project.default_branch);
  const stored = await services.db.selectFrom('trigger_manifests').select('commit_sha').where('project_id', '=', project.id).executeTakeFirst();
  if (stored && stored.commit_sha === tip) return { changed: false };

  let files = new Map<string, Buffer>();
  if (tip) files = await readFilesAtRef(repo.path, tip, MANIFEST_FILENAMES);
  const manifest = tip ? await readManifestFromTree(async (filename) => files.get(filename)?.toString('utf8') ?? null) : null;
  const errors: TriggerError[] = manifest
    ? [...manifest.ignored.map((other) => ({ index: null, slug: null, message: `${manifest.filename} and ${other} both exist; only ${manifest.filename} is read, so delete ${other}` })), ...manifest.errors]
    : [];
  const triggers = manifest?.triggers ?? [];
  const at = now.toISOString();

  const changed = await services.db.transaction().execute(async (trx) => {
    // One replica writes a project's set at a time; a second one that read the same tip finds it done.
    if (services.dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext(${`svc triggers ${project.id}`}))`.execute(trx);
    // A project deleted since its tip was read has no set to write; held here, it is not deleted until this commits.
    const stillThere = await trx.selectFrom('projects').select('id').where('id', '=', project.id).$if(services.dialect === 'postgres', (query) => query.forShare()).executeTakeFirst();
    if (!stillThere) return false;
    const current = await trx.selectFrom('trigger_manifests').select('commit_sha').where('project_id', '=', project.id).executeTakeFirst();
    if (current && current.commit_sha === tip) return false;
    const existing = new Map((await trx.selectFrom('triggers').selectAll().where('project_id', '=', project.id).execute()).map((row) => [row.slug, row]));
    const added: Array<Insertable<TriggersTable>> = [];
    for (const [position, trigger] of triggers.entries()) {
      const before = existing.get(trigger.slug);
      existing.delete(trigger.slug);
      const definition = JSON.stringify(trigger);
      if (!before) {
        added.push({ project_id: project.id, slug: trigger.slug, position, type: trigger.type, enabled: trigger.enabled, definition, next_fire_at: nextFireAt(trigger, now, null), last_fired_at: null, created_at: at, updated_at: at });
        continue;
      }
      // An entry the edit left alone keeps its row as it is: a manifest of thousands rewrites only what changed.
      if (before.position === position && isDeepStrictEqual(definitionOf(before), trigger)) continue;
      const sameSchedule = scheduleKey(definitionOf(before)) === scheduleKey(trigger) && readBool(before.enabled) === trigger.enabled;
      const nextFire = sameSchedule ? before.next_fire_at : nextFireAt(trigger, now, before.last_fired_at);
      await trx
        .updateTable('triggers')
        .set({ position, type: trigger.type, enabled: trigger.enabled, definition, next_fire_at: nextFire, updated_at: at })
        .where('project_id', '=', project.id)
        .where('slug', '=', trigger.slug)
        .execute();
    }
    for (let start = 0; start < added.length; start += INSERT_CHUNK) await trx.insertInto('triggers').values(added.slice(start, start + INSERT_CHUNK)).execute();
    const removed = [...existing.keys()];
    if (removed.length > 0) await trx.deleteFrom('triggers').where('project_id', '=', project.id).where('slug', 'in', removed).execute();
    const manifestRow = { commit_sha: tip, path: manifest?.filename ?? null, errors: JSON.stringify(errors), synced_at: at };
    await trx
      .insertInto('trigger_manifests')
      .values({ project_id: project.id, ...manifestRow })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(manifestRow))
      .execute();
    return true;
  });
  if (changed) services.events.emit('triggers.changed', { projectId: project.id });
  return { changed };
}

/** Re-reads every project's set (a replica starting, or the sweep after a branch moved on another replica). */
export async function syncAllProjectTriggers(services: Services, onError: (error: unknown, project: ProjectRow) => void): Promise<void> {
  const projects = await services.db.selectFrom('projects').selectAll().execute();
  for (const project of projects) {
    try {
      await syncProjectTriggers(services, project);
    } catch (error) {
      onError(error, project);
    }
  }
}

export function manifestErrorsOf(row: { errors: unknown } | undefined): TriggerError[] {
  return row ? readJson<TriggerError[]>(row.errors, []) : [];
}
