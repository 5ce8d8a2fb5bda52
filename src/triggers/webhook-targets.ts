/**
 * What the webhook receiver needs before it can check a delivery: the project, its enabled webhook trigger
 * of that slug, and the secret the trigger names. A project's webhook triggers and the secrets they name are
 * kept in memory with the version of the set they were read from (the manifest's commit and when it was
 * stored, which every re-read of the manifest rewrites, on whichever replica).
 *
 * A delivery is checked against what memory holds, and the transaction that records it confirms, in one
 * query for all the deliveries it records, that the version and the secret are still the database's
 * (`confirm`); one that is not is checked again from the database. An answer other than 202 is only ever
 * given from the database: a delivery refused on what memory holds is looked at again from fresh rows before
 * it is answered 401, 404 or 409. So a manifest re-read anywhere, a project deleted, or a secret set or deleted
 * counts from the next delivery on, with no time-to-live, and a delivery costs no query of its own.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { readBool } from '../db/values.js';
import type { NormalizedTrigger } from '../manifest/index.js';
import { accountSlots, accountSlotsColumns, slotsOfRow, type AccountSlots } from './plan-fire.js';
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
  /** The version of the set it was read from, which the recording transaction confirms. */
  version: string | null;
  /** Read from the database for this delivery, not from memory. */
  fresh: boolean;
}

interface KnownProject {
  version: string | null;
  project: WebhookProject;
  triggers: Map<string, WebhookTrigger>;
  /** Secret values by name, as read with `version`; null when not set. */
  secrets: Map<string, string | null>;
}

/** Which deliveries of a group are still what the database says, and the slots of the group's accounts as the same query read them. */
export interface GroupConfirmation {
  confirmed: boolean[];
  slots: Map<string, AccountSlots>;
}

/** Projects whose set is kept; past it the one kept longest is dropped (and read again when needed). */
const KEPT_PROJECTS = 1000;

function versionOf(row: { commit_sha: string | null; synced_at: string } | undefined): string | null {
  // As an instant: rows read as JSON (fire-batch.ts) give PostgreSQL's own format, not the driver's ISO one.
  return row ? `${row.commit_sha ?? ''} ${new Date(row.synced_at).getTime()}` : null;
}

export interface ConfirmationRow {
  project_id: string;
  commit_sha: string | null;
  synced_at: string;
  name: string | null;
  value: string | null;
  account_id: string;
  /** PostgreSQL only: the account's slots, read with the rest. */
  waiting?: number | string;
  active?: number | string;
}

/**
 * Every set and secret of the targets, and on PostgreSQL their accounts' slots: one query, so one round trip for a
 * group (`WebhookTargets.confirmedBy` reads its rows). On PostgreSQL SQL text that does not vary with the group
 * (arrays), so that it is prepared once (fire-batch.ts). On SQLite a list of values, whose text varies only with how
 * many projects and secrets a group has (one, nearly always) and is prepared once for each: the same query
 * reading JSON arrays with `json_each` took 65 µs a group inside the server, 246 µs against a copy of its
 * database, and 12 µs with values (the thread that answers requests runs it).
 */
export function confirmationQuery(
  dialect: Dialect,
  targets: readonly WebhookTarget[],
): RawBuilder<ConfirmationRow> {
  const projectIds = [...new Set(targets.map((target) => target.project.id))];
  const names = [...new Set(targets.map((target) => target.trigger.secret_env))];
  const among = (values: string[]) => (dialect === 'postgres' ? sql`= any(${values}::text[])` : sql`in (${sql.join(values)})`);
  // On SQLite the slots are asked apart (`confirm`): no round trip to save, and its subqueries ran four times slower here.
  const slots = dialect === 'postgres' ? sql`, ${accountSlotsColumns()}` : sql``;
  return sql<ConfirmationRow>`select m.project_id, m.commit_sha, m.synced_at, s.name, s.value, p.account_id${slots}
    from trigger_manifests m join projects p on p.id = m.project_id
    left join secrets s on s.project_id = m.project_id and s.name ${among(names)}
    where m.project_id ${among(projectIds)}`;
}

export class WebhookTargets {
  private readonly known = new Map<string, KnownProject>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * The project's enabled webhook trigger `slug` with its secret; null when the project or trigger is not
   * there. From memory when it holds the project and the secret; `fresh` reads the database.
   */
  async find(projectId: string, slug: string, { fresh = false } = {}): Promise<WebhookTarget | null> {
    let known = this.known.get(projectId);
    if (!fresh && known) {
      const trigger = known.triggers.get(slug);
      if (trigger && known.secrets.has(trigger.secret_env)) {
        return { project: known.project, trigger, secret: known.secrets.get(trigger.secret_env) ?? null, version: known.version, fresh: false };
      }
    }
    let current = known ? await this.current(projectId, known.triggers.get(slug)?.secret_env) : undefined;
    if (!known || !current || versionOf(current) !== known.version) {
      known = await this.load(projectId);
      if (!known) return null;
      current = await this.current(projectId, known.triggers.get(slug)?.secret_env);
    }
    const trigger = known.triggers.get(slug);
    if (!trigger) return null;
    const secret = current?.secret ?? null;
    // Kept only under the version it was read with: a set rewritten since is read again next time.
    if (versionOf(current) === known.version) known.secrets.set(trigger.secret_env, secret);
    return { project: known.project, trigger, secret, version: known.version, fresh: true };
  }

  /**
   * Whether each target is still the database's (its set's version and its secret), read in `trx` for all of
   * them at once with the slots of their accounts. One that is not is forgotten, so that the next look reads it again.
   */
  async confirm(trx: Kysely<Database>, targets: readonly WebhookTarget[]): Promise<GroupConfirmation> {
    if (targets.length === 0) return { confirmed: [], slots: new Map() };
    const { rows } = await confirmationQuery(this.dialect, targets).execute(trx);
    const confirmation = this.confirmedBy(rows, targets);
    if (this.dialect === 'sqlite') for (const accountId of new Set(rows.map((row) => row.account_id))) confirmation.slots.set(accountId, await accountSlots(trx, accountId));
    return confirmation;
  }

  /**
   * `confirm`'s answer from the rows of `confirmationQuery`, read by the caller with other reads of its own. A
   * target found out of date is forgotten unless `forget` is false (rows remembered, not read just now).
   */
  confirmedBy(rows: readonly ConfirmationRow[], targets: readonly WebhookTarget[], { forget = true } = {}): GroupConfirmation {
    const versions = new Map(rows.map((row) => [row.project_id, versionOf(row)]));
    const secrets = new Map(rows.filter((row) => row.name !== null).map((row) => [`${row.project_id} ${row.name}`, row.value]));
    const confirmed = targets.map((target) => {
      const same = versions.get(target.project.id) === target.version && (secrets.get(`${target.project.id} ${target.trigger.secret_env}`) ?? null) === target.secret;
      if (!same && forget) this.known.delete(target.project.id);
      return same;
    });
    const slots = new Map<string, AccountSlots>();
    for (const row of rows) if (row.waiting !== undefined && row.active !== undefined) slots.set(row.account_id, slotsOfRow({ waiting: row.waiting, active: row.active }));
    return { confirmed, slots };
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
    const known: KnownProject = { version, project, triggers, secrets: new Map() };
    if (this.known.size >= KEPT_PROJECTS) this.known.delete(this.known.keys().next().value as string);
    this.known.set(projectId, known);
    return known;
  }
}
