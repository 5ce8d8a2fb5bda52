/**
 * The trigger set of a project is the manifest on its default branch (contract §7). It is read again
 * whenever that branch moves (a merge, a push creating it, a mirror's fetch) and stored with what the
 * scheduler needs: a trigger whose schedule is unchanged keeps its next fire, so a manifest edit to its
 * prompt neither skips nor repeats one; a new or rescheduled trigger is planned from when the manifest has
 * been read.
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
/**
 * Triggers planned or written per turn of the event loop: croner takes up to 0.1 ms to plan one, so 10,000 at
 * once held every request for a second. (SQLite's statements complete synchronously: without a turn given up
 * between them, a transaction of thousands of rows would hold every request too.)
 */
const TRIGGERS_PER_TURN = 50;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Gives up a turn of the event loop every `count`th call. */
function turnsEvery(count: number): () => Promise<void> {
  let calls = 0;
  return async () => {
    if (++calls % count === 0) await nextTurn();
  };
}

export interface TriggerSyncResult {
  /** False when the stored set was already read from the branch's tip. */
  changed: boolean;
}

/** What decides when a trigger fires: a change to any of it plans the trigger again from now. */
function scheduleKey(trigger: NormalizedTrigger): string {
  return trigger.type === 'cron' ? JSON.stringify([trigger.type, trigger.enabled, trigger.cron, trigger.run_at, trigger.timezone]) : JSON.stringify([trigger.type, trigger.enabled]);
}

/**
 * The next fires of the cron triggers that need planning (new, or rescheduled against `stored`), worked out
 * before the transaction, a few dozen per turn of the event loop, so that requests are answered meanwhile.
 */
async function planCronFires(triggers: readonly NormalizedTrigger[], stored: ReadonlyMap<string, NormalizedTrigger>, now: Date): Promise<Map<string, string | null>> {
  const planned = new Map<string, string | null>();
  const turn = turnsEvery(TRIGGERS_PER_TURN);
  for (const trigger of triggers) {
    if (trigger.type !== 'cron' || !trigger.enabled || trigger.run_at !== null) continue;
    const before = stored.get(trigger.slug);
    if (before && scheduleKey(before) === scheduleKey(trigger)) continue;
    planned.set(trigger.slug, nextFireAt(trigger, now, null));
    await turn();
  }
  return planned;
}

/**
 * This process's syncs under way, by database (a request's context and the server's services share it) and
 * project: two at once would each parse and plan thousands of triggers for one write.
 */
const underWay = new WeakMap<object, Map<string, Promise<TriggerSyncResult>>>();

/**
 * Reads the project's set from its default branch's tip and stores it, unless it is stored already. Syncs of
 * one project run one after another: the later one reads the tip again (the branch may have moved since) and,
 * when the earlier one stored it, finds nothing to do. `now` (tests) plans from that instant; otherwise new triggers
 * are planned from the moment the manifest has been read (`syncTriggers`).
 */
export function syncProjectTriggers(services: Services, project: ProjectRow, now?: Date): Promise<TriggerSyncResult> {
  let projects = underWay.get(services.db);
  if (!projects) underWay.set(services.db, (projects = new Map()));
  const sync = (projects.get(project.id) ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => syncTriggers(services, project, now));
  projects.set(project.id, sync);
  void sync.catch(() => undefined).finally(() => projects.get(project.id) === sync && projects.delete(project.id));
  return sync;
}

async function syncTriggers(services: Services, project: ProjectRow, plannedFrom: Date | undefined): Promise<TriggerSyncResult> {
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
  // Planned from the moment the manifest has been read, not from when the sync began: parsing 10,000 triggers takes
  // over half a second, and a slot that passed meanwhile was due before any replica could see the trigger, so it
  // fired that late. (cron, reading a new crontab, likewise schedules from when it loads it.)
  const now = plannedFrom ?? new Date();
  const at = now.toISOString();
  const storedTriggers = await services.db.selectFrom('triggers').select(['slug', 'enabled', 'definition']).where('project_id', '=', project.id).execute();
  const planned = await planCronFires(triggers, new Map(storedTriggers.map((row) => [row.slug, { ...definitionOf(row), enabled: readBool(row.enabled) }])), now);
  // A cron schedule's next fire does not depend on the last fire (only a run_at's does): what was planned above holds.
  const plan = (trigger: NormalizedTrigger, lastFiredAt: string | null) => (planned.has(trigger.slug) ? (planned.get(trigger.slug) ?? null) : nextFireAt(trigger, now, lastFiredAt));

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
    const turn = turnsEvery(TRIGGERS_PER_TURN);
    for (const [position, trigger] of triggers.entries()) {
      const before = existing.get(trigger.slug);
      existing.delete(trigger.slug);
      const definition = JSON.stringify(trigger);
      if (!before) {
        added.push({ project_id: project.id, slug: trigger.slug, position, type: trigger.type, enabled: trigger.enabled, definition, next_fire_at: plan(trigger, null), last_fired_at: null, created_at: at, updated_at: at });
        continue;
      }
      // An entry the edit left alone keeps its row as it is: a manifest of thousands rewrites only what changed.
      if (before.position === position && isDeepStrictEqual(definitionOf(before), trigger)) continue;
      const sameSchedule = scheduleKey(definitionOf(before)) === scheduleKey(trigger) && readBool(before.enabled) === trigger.enabled;
      const nextFire = sameSchedule ? before.next_fire_at : plan(trigger, before.last_fired_at);
      await trx
        .updateTable('triggers')
        .set({ position, type: trigger.type, enabled: trigger.enabled, definition, next_fire_at: nextFire, updated_at: at })
        .where('project_id', '=', project.id)
        .where('slug', '=', trigger.slug)
        .execute();
      await turn();
    }
    for (let start = 0; start < added.length; start += INSERT_CHUNK) {
      await trx.insertInto('triggers').values(added.slice(start, start + INSERT_CHUNK)).execute();
      await nextTurn();
    }
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
