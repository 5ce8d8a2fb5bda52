/**
 * What the webhook receiver needs before it can check a delivery: the project, its enabled webhook trigger
 * of that slug, and the secret the trigger names. A project's webhook triggers are kept in memory with the
 * version of the set they were read from (the manifest's commit and when it was stored, which every re-read
 * of the manifest rewrites, on whichever replica). Each delivery reads that version and the secret in one
 * query: a manifest re-read anywhere, a project deleted, or a secret set or deleted counts from the next
 * delivery on, with no time-to-live. The database stays the truth; memory only saves re-reading and
 * re-parsing an unchanged set.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { readBool } from '../db/values.js';
import type { NormalizedTrigger } from '../manifest/index.js';
import { definitionOf } from './trigger-row.js';

export type WebhookTrigger = Extract<NormalizedTrigger, { type: 'webhook' }>;

export interface WebhookProject {
  id: string;
  account_id: string;
  created_by: string;
}

export interface WebhookTarget {
  project: WebhookProject;
  trigger: WebhookTrigger;
  /** The value of the trigger's secret_env, null when it is not set. */
  secret: string | null;
}

interface KnownProject {
  version: string | null;
  project: WebhookProject;
  triggers: Map<string, WebhookTrigger>;
}

/** Projects whose set is kept; past it the one kept longest is dropped (and read again when needed). */
const KEPT_PROJECTS = 1000;

function versionOf(row: { commit_sha: string | null; synced_at: string } | undefined): string | null {
  return row ? `${row.commit_sha ?? ''} ${row.synced_at}` : null;
}

export class WebhookTargets {
  private readonly known = new Map<string, KnownProject>();

  constructor(private readonly db: Kysely<Database>) {}

  /** The project's enabled webhook trigger `slug` with its secret; null when the project or trigger is not there. */
  async find(projectId: string, slug: string): Promise<WebhookTarget | null> {
    let known = this.known.get(projectId);
    let current = known ? await this.current(projectId, known.triggers.get(slug)?.secret_env) : undefined;
    if (!known || !current || versionOf(current) !== known.version) {
      known = await this.load(projectId);
      if (!known) return null;
      current = await this.current(projectId, known.triggers.get(slug)?.secret_env);
    }
    const trigger = known.triggers.get(slug);
    if (!trigger) return null;
    return { project: known.project, trigger, secret: current?.secret ?? null };
  }

  /** The version of the project's set, and the secret named (when one is). */
  private async current(projectId: string, secretName: string | undefined) {
    const { rows } = await sql<{ commit_sha: string | null; synced_at: string; secret: string | null }>`
      select m.commit_sha, m.synced_at, (select s.value from secrets s where s.project_id = m.project_id and s.name = ${secretName ?? ''}) as secret
      from trigger_manifests m where m.project_id = ${projectId}`.execute(this.db);
    return rows[0];
  }

  private async load(projectId: string): Promise<KnownProject | undefined> {
    this.known.delete(projectId);
    const project = await this.db.selectFrom('projects').select(['id', 'account_id', 'created_by']).where('id', '=', projectId).executeTakeFirst();
    if (!project) return undefined;
    // The version first: a set rewritten after it is stored under the older version, and read again next time.
    const version = versionOf(await this.db.selectFrom('trigger_manifests').select(['commit_sha', 'synced_at']).where('project_id', '=', projectId).executeTakeFirst());
    const rows = await this.db.selectFrom('triggers').select(['slug', 'enabled', 'definition']).where('project_id', '=', projectId).where('type', '=', 'webhook').execute();
    const triggers = new Map<string, WebhookTrigger>();
    for (const row of rows) {
      const trigger = definitionOf(row);
      if (readBool(row.enabled) && trigger.type === 'webhook') triggers.set(row.slug, trigger);
    }
    const known = { version, project, triggers };
    if (this.known.size >= KEPT_PROJECTS) this.known.delete(this.known.keys().next().value as string);
    this.known.set(projectId, known);
    return known;
  }
}
