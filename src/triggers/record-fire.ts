/**
 * A webhook or manual fire is recorded before it is answered: its session (or the session it re-prompts) is
 * decided and named in the answer, and whether it waits for a slot. Starting it is start-fire.ts's, after
 * the answer, so a slow sandbox never makes a sender wait and a crash in between loses nothing.
 */
import { CompiledQuery, sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import { isUniqueViolation, type Dialect } from '../db/database.js';
import type { Database, TriggerFireSource } from '../db/schema.js';
import type { TransactionRunner } from '../db/transactions.js';
import { preparedOnPostgres } from '../db/prepared-statements.js';
import { newTimeOrderedId } from '../time-ordered-id.js';
import type { NormalizedTrigger } from '../manifest/index.js';
import { accountSlots, needsSlot, planTarget, waitReasonOf, type AccountSlots, type FireTarget } from './plan-fire.js';
import type { TriggerFireRow } from './trigger-row.js';

export interface FireInput {
  project: Pick<ProjectRow, 'id' | 'account_id'>;
  trigger: NormalizedTrigger;
  source: TriggerFireSource;
  prompt: string;
  actorUserId: string;
  firedAt: string;
  /** X-GitHub-Delivery or webhook-id: a delivery seen within the last 24 hours is recorded as its duplicate. */
  deliveryId?: string | null;
}

const DUPLICATE_WINDOW_MS = 24 * 3_600_000;

export function newFireRow(input: FireInput & { dueAt?: string | null }): TriggerFireRow {
  return {
    id: newTimeOrderedId(),
    project_id: input.project.id,
    account_id: input.project.account_id,
    trigger_slug: input.trigger.slug,
    source: input.source,
    status: 'fired',
    session_id: null,
    session_mode: input.trigger.session_mode,
    target: 'undecided',
    fallback: null,
    reason: null,
    prompt: input.prompt,
    agent: input.trigger.agent,
    model: input.trigger.model,
    actor_user_id: input.actorUserId,
    delivery_id: input.deliveryId ?? null,
    fired_at: input.firedAt,
    due_at: input.dueAt ?? null,
    started_at: null,
    claimed_by: null,
    claimed_until: null,
    attempts: 0,
  };
}

/**
 * Records the fire, and the decisions it is answered with, in one transaction; the caller emits
 * `triggers.fired` once it has answered, which starts it. (The webhook receiver records the deliveries that
 * arrive together in one transaction: fire-batch.ts.)
 */
export async function recordFire(
  services: Services,
  input: FireInput,
  transactions: TransactionRunner = services.transactions,
  /** Runs first in the transaction; throwing ends it with nothing recorded. */
  beforeRecord?: (trx: Transaction<Database>) => Promise<void>,
): Promise<TriggerFireRow> {
  const settings = { maxSessions: services.config.sessions.maxSessions, dialect: services.dialect };
  const record = async (trx: Transaction<Database>) => {
    await beforeRecord?.(trx);
    return (await recordFiresIn(trx, settings, [input]))[0]!;
  };
  try {
    return await transactions.run(record);
  } catch (error) {
    // Two copies of one delivery at once on PostgreSQL: the unique delivery id lets one in; the other is its duplicate.
    if (!input.deliveryId || !isUniqueViolation(error)) throw error;
    return transactions.run(record);
  }
}

/**
 * Whether `recordFiresIn` writes these fires with one statement, which PostgreSQL makes atomic on its own: fires
 * that start fresh sessions plan nothing from what the ones before them wrote (reuse and pinned do), so the
 * group is one insert. (A duplicate whose first delivery is older than the
 * window clears that old id first; were the insert to fail, the id stays cleared, as it would be next time.)
 */
export function writtenInOneStatement(dialect: Dialect, inputs: readonly FireInput[]): boolean {
  return dialect === 'postgres' && inputs.every((input) => input.trigger.session_mode === 'fresh');
}

export interface RecordSettings {
  /** SVC_MAX_SESSIONS: an account's slots. */
  maxSessions: number;
  dialect: Dialect;
}

/**
 * Records fires in one transaction, in the order given, each decided as it would be alone: a fire queued
 * earlier counts among those waiting for the ones after it; a delivery id repeated among them makes the later
 * one its duplicate; a fire that re-prompts a session (reuse, pinned) plans from what is recorded, so the fires
 * before it are written first. Inserts and `last_fired_at` go in one statement each where they can.
 */
export async function recordFiresIn(
  /** A transaction, or on PostgreSQL the database itself when the fires are written by one statement (`writtenInOneStatement`). */
  trx: Kysely<Database>,
  settings: RecordSettings,
  inputs: readonly FireInput[],
  /**
   * Read already in `trx` (fire-batch.ts reads them with its confirmation): the accounts' slots, good until the
   * first write, and the fires recorded for the inputs' delivery ids (`recordedDeliveriesOf`).
   */
  known: {
    slots?: ReadonlyMap<string, AccountSlots>;
    deliveries?: ReadonlyMap<string, RecordedDelivery>;
  } = {},
  /** Writes the fires decided (`writeFires`); fire-batch.ts writes a group of fresh-session fires itself. */
  writer: (rows: readonly TriggerFireRow[]) => Promise<void> = (rows) => writeFires(trx, settings.dialect, rows),
): Promise<TriggerFireRow[]> {
  const { maxSessions, dialect } = settings;
  const answers: TriggerFireRow[] = [];
  let unwritten: TriggerFireRow[] = [];
  const slots = new Map<string, AccountSlots>(known.slots);
  const deliveries = new Map<string, TriggerFireRow>();
  const recorded = known.deliveries ?? (await recordedDeliveries(trx, dialect, inputs));
  const write = async () => {
    await writer(unwritten);
    unwritten = [];
    slots.clear();
  };
  const keep = (row: TriggerFireRow) => {
    unwritten.push(row);
    answers.push(row);
  };
  for (const input of inputs) {
    const delivery = input.deliveryId ? deliveryKey(input.project.id, input.trigger.slug, input.deliveryId) : null;
    const sameDelivery = delivery ? deliveries.get(delivery) : undefined;
    if (sameDelivery) {
      keep(duplicateRow(input, sameDelivery.session_id));
      continue;
    }
    const earlier = delivery ? recorded.get(delivery) : undefined;
    const duplicate = earlier ? await duplicateOf(trx, input, earlier) : null;
    if (duplicate) {
      keep(duplicate);
      continue;
    }
    if (input.trigger.session_mode !== 'fresh' && unwritten.length > 0) await write();
    const target = await planTarget(trx, input.project.id, input.trigger);
    let reason: string | null = null;
    if (needsSlot(target)) {
      const accountId = input.project.account_id;
      let account = slots.get(accountId);
      if (!account) {
        account = await accountSlots(trx, accountId);
        slots.set(accountId, account);
      }
      reason = waitReasonOf(account, maxSessions);
      // It waits too, ahead of the group's fires after it.
      if (reason) account.waiting += 1;
    }
    const row = plannedFireRow(input, target, reason);
    if (delivery) deliveries.set(delivery, row);
    keep(row);
  }
  await write();
  return answers;
}

/** The fire as recorded, with the session it goes to and, when it waits for a slot, why. */
export function plannedFireRow(input: FireInput, target: FireTarget, reason: string | null): TriggerFireRow {
  return {
    ...newFireRow(input),
    status: reason ? 'queued' : 'fired',
    reason,
    session_id: target.sessionId,
    target: target.target,
    fallback: target.fallback,
  };
}

export interface RecordedDelivery {
  id: string;
  session_id: string | null;
  fired_at: string;
}

export type RecordedDeliveryRow = RecordedDelivery & { project_id: string; trigger_slug: string; delivery_id: string };

function deliveryKey(projectId: string, slug: string, deliveryId: string): string {
  return `${projectId} ${slug} ${deliveryId}`;
}

/** The delivery ids of the inputs, once each. */
export function deliveryIdsOf(inputs: readonly FireInput[]): string[] {
  return [...new Set(inputs.flatMap((input) => (input.deliveryId ? [input.deliveryId] : [])))];
}

/**
 * The fires already recorded with these delivery ids: one query for a whole group (every GitHub delivery has an
 * id, and on PostgreSQL a query per delivery was a round trip each). It asks by id alone, which only
 * `trigger_fires_delivery` answers; `recordedDeliveriesOf` leaves out another project's fire with the same id.
 * PostgreSQL without statistics on the ids yet (a new database, a burst since the last ANALYZE) takes an `IN`
 * list (or a join) of 50 ids to match a quarter of the table and reads all of it; each id looked up on its own
 * (a lateral subquery, kept one by `offset 0`, which the planner does not flatten into a join) is found in the index.
 */
export function recordedDeliveriesQuery(dialect: Dialect, ids: readonly string[]): RawBuilder<RecordedDeliveryRow> {
  return dialect === 'postgres'
    ? sql<RecordedDeliveryRow>`select f.id, f.project_id, f.trigger_slug, f.delivery_id, f.session_id, f.fired_at
        from unnest(${[...ids]}::text[]) as wanted(id)
        cross join lateral (select * from trigger_fires where delivery_id = wanted.id offset 0) f`
    : sql<RecordedDeliveryRow>`select id, project_id, trigger_slug, delivery_id, session_id, fired_at from trigger_fires where delivery_id in (${sql.join(ids)})`;
}

/** The fires recorded for the inputs' deliveries, by `deliveryKey`, from the rows of `recordedDeliveriesQuery`. */
export function recordedDeliveriesOf(rows: readonly RecordedDeliveryRow[], inputs: readonly FireInput[]): Map<string, RecordedDelivery> {
  const wanted = new Set(inputs.filter((input) => input.deliveryId).map((input) => deliveryKey(input.project.id, input.trigger.slug, input.deliveryId!)));
  const recorded = new Map<string, RecordedDelivery>();
  for (const row of rows) {
    const key = deliveryKey(row.project_id, row.trigger_slug, row.delivery_id);
    if (wanted.has(key)) recorded.set(key, row);
  }
  return recorded;
}

/** The fires already recorded for the inputs' delivery ids, by `deliveryKey` (one query, `recordedDeliveriesQuery`). */
export async function recordedDeliveries(db: Kysely<Database>, dialect: Dialect, inputs: readonly FireInput[]): Promise<Map<string, RecordedDelivery>> {
  const ids = deliveryIdsOf(inputs);
  if (ids.length === 0) return new Map();
  return recordedDeliveriesOf((await recordedDeliveriesQuery(dialect, ids).execute(db)).rows, inputs);
}

/**
 * A repeated delivery is listed among the fires (status duplicate) and starts nothing: its row, not yet
 * inserted, or null when the earlier delivery of its id is older than the window.
 */
async function duplicateOf(db: Kysely<Database>, input: FireInput, earlier: RecordedDelivery): Promise<TriggerFireRow | null> {
  if (Date.parse(earlier.fired_at) <= Date.parse(input.firedAt) - DUPLICATE_WINDOW_MS) {
    // Older than the window: the id may be used again, by this delivery.
    await sql`update trigger_fires set delivery_id = null where id = ${earlier.id}`.execute(db);
    return null;
  }
  return duplicateRow(input, earlier.session_id);
}

export function duplicateRow(input: FireInput, sessionId: string | null): TriggerFireRow {
  return {
    ...newFireRow({ ...input, deliveryId: null }),
    status: 'duplicate',
    session_id: sessionId,
    target: 'existing',
    reason: 'a delivery with the same id arrived within the last 24 hours',
    prompt: '',
    agent: null,
    model: null,
    started_at: input.firedAt,
  };
}

/** trigger_fires's columns in the order an insert writes them: every field of a fire's row. */
const FIRE_COLUMN_SET = {
  id: true,
  project_id: true,
  account_id: true,
  trigger_slug: true,
  source: true,
  status: true,
  session_id: true,
  session_mode: true,
  target: true,
  fallback: true,
  reason: true,
  prompt: true,
  agent: true,
  model: true,
  actor_user_id: true,
  delivery_id: true,
  fired_at: true,
  due_at: true,
  started_at: true,
  claimed_by: true,
  claimed_until: true,
  attempts: true,
} as const satisfies Record<keyof TriggerFireRow, true>;
const FIRE_COLUMNS = Object.keys(FIRE_COLUMN_SET) as Array<keyof typeof FIRE_COLUMN_SET>;
const FIRE_COLUMN_LIST = FIRE_COLUMNS.join(', ');

/**
 * PostgreSQL: the rows to insert, read from one JSON parameter as trigger_fires rows. Its text is the same for any
 * number of rows, so it is prepared once per connection (prepared-statements.ts) where a `values` list of 22
 * placeholders a row was parsed and planned anew for every group; and one JSON text costs svc's thread a
 * fraction of what 22 arrays did, each value escaped into PostgreSQL's array syntax by node-postgres.
 */
const POSTGRES_INSERT = preparedOnPostgres(`insert into trigger_fires (${FIRE_COLUMN_LIST}) select ${FIRE_COLUMN_LIST} from json_populate_recordset(null::trigger_fires, $1::json)`);
/** The insert and the triggers' `last_fired_at` in one statement (a data-modifying WITH runs to completion with the update). */
const POSTGRES_WRITE = preparedOnPostgres(
  // The later of the two: groups written side by side (fire-batch.ts) may commit out of order.
  `with inserted as (${POSTGRES_INSERT}) update triggers as t set last_fired_at = greatest(t.last_fired_at, v.fired_at) ` +
    'from unnest($2::text[], $3::text[], $4::timestamptz[]) as v(project_id, slug, fired_at) ' +
    'where t.project_id = v.project_id and t.slug = v.slug',
);

/** The rows as `json_populate_recordset` reads them. */
function rowsJson(rows: readonly TriggerFireRow[]): string {
  return JSON.stringify(rows);
}

/**
 * SQLite: one row per statement, run once for each fire. A multi-row insert that can fail part way (a unique
 * delivery id, the project's foreign key) makes SQLite keep a statement journal, a copy of every page it
 * changes, spilled to a temporary file past 64 KiB; a group's insert and commit cost twice what the same
 * rows cost one statement each (36 µs a fire against 18, 150,000 fires recorded).
 */
const SQLITE_INSERT = `insert into trigger_fires (${FIRE_COLUMN_LIST}) values (${FIRE_COLUMNS.map(() => '?').join(', ')})`;

/**
 * Written as SQL text with its parameters, not built with Kysely: every webhook delivery and cron fire inserts
 * one, and building and compiling a 22-column insert took longer than running it.
 */
export async function insertFires(trx: Kysely<Database>, dialect: Dialect, rows: readonly TriggerFireRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (dialect === 'postgres') {
    await trx.executeQuery(CompiledQuery.raw(POSTGRES_INSERT, [rowsJson(rows)]));
    return;
  }
  for (const row of rows) await trx.executeQuery(CompiledQuery.raw(SQLITE_INSERT, FIRE_COLUMNS.map((column) => row[column])));
}

/**
 * The latest of each trigger's fires among `rows`, duplicates and webhook deliveries aside: what its
 * `last_fired_at` becomes. A webhook trigger's last delivery is read from its fires (list-triggers.ts), not
 * written on its row: every group of deliveries updating that one row made each group's write wait for the
 * commit of the one before it (the row stays locked until then), on every replica.
 */
function latestFires(rows: readonly TriggerFireRow[]): TriggerFireRow[] {
  const latest = new Map<string, TriggerFireRow>();
  for (const row of rows) {
    if (row.status === 'duplicate' || row.source === 'webhook') continue;
    const key = `${row.project_id} ${row.trigger_slug}`;
    const seen = latest.get(key);
    if (!seen || seen.fired_at < row.fired_at) latest.set(key, row);
  }
  return [...latest.values()];
}

/**
 * Inserts the fires and moves their triggers' `last_fired_at` (`latestFires`); on PostgreSQL in one statement: a
 * group of webhook deliveries waits for every round trip of the one before it.
 */
export async function writeFires(trx: Kysely<Database>, dialect: Dialect, rows: readonly TriggerFireRow[]): Promise<void> {
  if (rows.length === 0) return;
  const latest = latestFires(rows);
  if (dialect !== 'postgres') {
    await insertFires(trx, dialect, rows);
    await markLastFired(trx, latest);
    return;
  }
  if (latest.length === 0) return insertFires(trx, dialect, rows);
  const parameters = [rowsJson(rows), latest.map((row) => row.project_id), latest.map((row) => row.trigger_slug), latest.map((row) => row.fired_at)];
  await trx.executeQuery(CompiledQuery.raw(POSTGRES_WRITE, parameters));
}

/** Each trigger's `last_fired_at`, from its latest fire (`latestFires`). */
async function markLastFired(trx: Kysely<Database>, latest: readonly TriggerFireRow[]): Promise<void> {
  for (const row of latest) {
    await sql`update triggers set last_fired_at = ${row.fired_at} where project_id = ${row.project_id} and slug = ${row.trigger_slug}`.execute(trx);
  }
}

/**
 * PostgreSQL: the insert of webhook deliveries' fires (which move no trigger's `last_fired_at`, `latestFires`) as
 * the data-modifying part of a larger statement (fire-batch.ts), writing nothing unless `condition`, a boolean of
 * that statement, holds. Its text does not vary with the rows (one JSON parameter), so the statement around it is
 * prepared once.
 */
export function deliveryInsertWhere(rows: readonly TriggerFireRow[], condition: RawBuilder<boolean>): RawBuilder<unknown> {
  if (latestFires(rows).length > 0) throw new Error('deliveryInsertWhere writes webhook deliveries only');
  const columns = sql.raw(FIRE_COLUMN_LIST);
  return sql`insert into trigger_fires (${columns}) select ${columns} from json_populate_recordset(null::trigger_fires, ${rowsJson(rows)}::json) where ${condition}`;
}
