/**
 * Webhook fires that arrive together are recorded together, and each delivery is answered once its group is
 * committed. Groups are recorded one at a time, each decided from what the one before it left. On PostgreSQL a
 * group of fresh-session fires is written with no BEGIN and COMMIT: when the group before it left what it read
 * known (`settled`), by one statement, which reads what the group was checked against (its trigger sets' versions
 * and secrets, its accounts' queues and slots, the fires already recorded with its delivery ids) and writes only
 * where it finds that unchanged (`recordOnCondition`); otherwise by two, the read and then the insert, each
 * prepared once per connection. On SQLite, where a query costs no round trip, a group is one transaction of small
 * queries. A fire recorded alone cost PostgreSQL five round trips.
 *
 * A group read while the one before it was still being written cost more than it saved: two statements a group
 * where one did, and PostgreSQL's backends taking the cores from svc's thread twice as often, for no more fires a
 * second at saturation (the group waiting grows instead).
 *
 * Each fire gets the decisions it would get recorded alone (`recordFiresIn`, record-fire.ts). The group first
 * confirms that what each delivery was checked against (its trigger set's version and its secret) is still
 * the database's (webhook-targets.ts); a fire whose check is out of date is not recorded, and its call fails
 * with `StaleTargetError` for the receiver to check it again. If the group cannot be written (two replicas
 * recording one delivery at once, say), each of its fires is recorded alone.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Services } from '../context.js';
import { CallBatches, type PendingCall } from '../db/call-batches.js';
import { preparedOnPostgres } from '../db/prepared-statements.js';
import type { Database } from '../db/schema.js';
import { WAITING_COUNTED } from './plan-fire.js';
import {
  deliveryIdsOf,
  deliveryInsertWhere,
  recordedDeliveries,
  recordedDeliveriesOf,
  recordedDeliveriesQuery,
  recordFire,
  recordFiresIn,
  writeFires,
  writtenInOneStatement,
  type FireInput,
  type RecordedDelivery,
  type RecordedDeliveryRow,
} from './record-fire.js';
import type { TriggerFireRow } from './trigger-row.js';
import { confirmationQuery, type ConfirmationRow, type GroupConfirmation, type WebhookTarget, type WebhookTargets } from './webhook-targets.js';

/** At most this many fires share a transaction, so one commit never holds up the others for long. */
const MAX_FIRES_PER_GROUP = 64;

export interface WebhookFireInput extends FireInput {
  /** What the delivery was checked against. */
  target: WebhookTarget;
}

/** The delivery was checked against a trigger set or secret that has changed since: check it again. */
export class StaleTargetError extends Error {
  constructor() {
    super("the webhook's trigger or secret changed while its delivery was checked");
  }
}

/**
 * PostgreSQL: what a group's read found (`confirmationQuery`'s rows: the trigger sets, the secrets, the accounts'
 * queues), with that group's own queued fires counted in. Once the group is written, and while nothing else
 * writes, it is what the next group's read would find.
 */
interface Settled {
  /** The projects and secret names it was read for (`readKeyOf`). */
  key: string;
  rows: ConfirmationRow[];
}

/** The projects and secret names a group's read covers: a read for the same ones finds the same rows. */
function readKeyOf(inputs: readonly WebhookFireInput[]): string {
  const projects = [...new Set(inputs.map((input) => input.target.project.id))].sort();
  const names = [...new Set(inputs.map((input) => input.target.trigger.secret_env))].sort();
  return `${projects.join(' ')} | ${names.join(' ')}`;
}

/** The rows with the fires' queued ones added to their accounts' queues, counted as the read counts them. */
function settledAfter(rows: readonly ConfirmationRow[], fires: readonly TriggerFireRow[]): ConfirmationRow[] {
  return rows.map((row) => {
    if (row.waiting === undefined) return row;
    const queued = fires.filter((fire) => fire.status === 'queued' && fire.account_id === row.account_id).length;
    return { ...row, waiting: Math.min(Number(row.waiting) + queued, WAITING_COUNTED) };
  });
}

export class FireBatch {
  private readonly calls: CallBatches<WebhookFireInput, TriggerFireRow>;
  /** What the last group written left; null when not known. */
  private settled: Settled | null = null;

  constructor(
    private readonly services: Services,
    private readonly targets: WebhookTargets,
  ) {
    this.calls = new CallBatches(MAX_FIRES_PER_GROUP, (group) => this.recordGroup(group));
  }

  /** Records the fire beside the others that arrive with it; resolves once it is committed. */
  record(input: WebhookFireInput): Promise<TriggerFireRow> {
    return this.calls.submit(input);
  }

  private async recordGroup(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>): Promise<void> {
    const inputs = group.map((call) => call.input);
    if (writtenInOneStatement(this.services.dialect, inputs)) return this.recordFresh(group);
    this.settled = null;
    const settings = this.settings();
    let outcome: { confirmed: boolean[]; rows: TriggerFireRow[] };
    try {
      outcome = await this.services.db.transaction().execute(async (trx) => {
        const { confirmed, slots, deliveries } = await this.readGroup(trx, inputs);
        const rows = await recordFiresIn(trx, settings, inputs.filter((_, index) => confirmed[index]), { slots, deliveries });
        return { confirmed, rows };
      });
    } catch {
      await this.recordEachAlone(group);
      return;
    }
    this.answer(group, outcome.confirmed, outcome.rows);
  }

  /**
   * A group of fresh-session fires on PostgreSQL, written with no BEGIN and COMMIT (under READ COMMITTED every
   * statement reads afresh, so they would add two round trips and no guarantee): by one statement when the last
   * group left what it reads known, else by two.
   */
  private async recordFresh(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>): Promise<void> {
    const settled = this.settledFor(group.map((call) => call.input));
    try {
      await (settled ? this.recordOnCondition(group, settled) : this.readAndWrite(group));
    } catch {
      await this.recordEachAlone(group);
    }
  }

  /** A group read, decided from what the read found, and written: two round trips, where fire by fire cost five each. */
  private async readAndWrite(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>): Promise<void> {
    const db = this.services.db;
    const settings = this.settings();
    const inputs = group.map((call) => call.input);
    const read = await this.readGroup(db, inputs);
    const rows = await recordFiresIn(db, settings, inputs.filter((_, index) => read.confirmed[index]), read, async () => {});
    await writeFires(db, settings.dialect, rows);
    this.settled = { key: readKeyOf(inputs), rows: settledAfter(read.rows, rows) };
    this.answer(group, read.confirmed, rows);
  }

  /** What the last group left, when it is what these deliveries were checked against; else null. */
  private settledFor(inputs: readonly WebhookFireInput[]): Settled | null {
    const settled = this.settled;
    if (!settled || settled.key !== readKeyOf(inputs)) return null;
    const { confirmed } = this.targets.confirmedBy(settled.rows, inputs.map((input) => input.target), { forget: false });
    return confirmed.every(Boolean) ? settled : null;
  }

  /**
   * A group decided from what the last one left (`settled`) and written by one statement (one round trip, not
   * two), which reads what `readGroup` reads and writes only if it finds `settled` unchanged and none of the
   * delivery ids recorded. Otherwise nothing is written, and the group is decided again from what the statement
   * read, and written.
   */
  private async recordOnCondition(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>, settled: Settled): Promise<void> {
    const db = this.services.db;
    const settings = this.settings();
    const inputs = group.map((call) => call.input);
    const slots = this.targets.confirmedBy(settled.rows, inputs.map((input) => input.target), { forget: false }).slots;
    const rows = await recordFiresIn(db, settings, inputs, { slots, deliveries: new Map() }, async () => {});
    const found = await this.writeOnCondition(db, inputs, settled.rows, rows);
    if (found.holds) {
      this.settled = { key: settled.key, rows: settledAfter(settled.rows, rows) };
      this.answer(group, inputs.map(() => true), rows);
      return;
    }
    const read = { ...this.targets.confirmedBy(found.confirmation, inputs.map((input) => input.target)), deliveries: recordedDeliveriesOf(found.deliveries, inputs) };
    const again = await recordFiresIn(db, settings, inputs.filter((_, index) => read.confirmed[index]), read, async () => {});
    await writeFires(db, settings.dialect, again);
    this.settled = { key: settled.key, rows: settledAfter(found.confirmation, again) };
    this.answer(group, read.confirmed, again);
  }

  /** `settled`'s statement: the group's read, and its write where the read finds `expected` and no delivery recorded. */
  private async writeOnCondition(
    db: Kysely<Database>,
    inputs: readonly WebhookFireInput[],
    expected: readonly ConfirmationRow[],
    rows: readonly TriggerFireRow[],
  ): Promise<{ holds: boolean; confirmation: ConfirmationRow[]; deliveries: RecordedDeliveryRow[] }> {
    const targets = inputs.map((input) => input.target);
    const expectedJson = JSON.stringify(expected);
    const insert = deliveryInsertWhere(rows, sql<boolean>`(select holds from settled)`);
    // Every part of one statement sees the database as it was when the statement began: the insert is not read.
    // The two containments compare the rows as sets, whatever order the aggregate puts them in.
    const query = sql<{ holds: boolean; confirmation: ConfirmationRow[]; deliveries: RecordedDeliveryRow[] }>`with found as materialized (select
        (select coalesce(jsonb_agg(c), '[]'::jsonb) from (${confirmationQuery('postgres', targets)}) c) as confirmation,
        (select coalesce(jsonb_agg(d), '[]'::jsonb) from (${recordedDeliveriesQuery('postgres', deliveryIdsOf(inputs))}) d) as deliveries),
      settled as materialized (select f.confirmation @> ${expectedJson}::jsonb and ${expectedJson}::jsonb @> f.confirmation and f.deliveries = '[]'::jsonb as holds from found f),
      inserted as (${insert})
      select f.confirmation, f.deliveries, (select holds from settled) as holds from found f`.compile(db);
    preparedOnPostgres(query.sql);
    const [found] = (await db.executeQuery(query)).rows;
    if (!found) throw new Error('the conditional write returned no row');
    return found;
  }

  private settings() {
    return { maxSessions: this.services.config.sessions.maxSessions, dialect: this.services.dialect };
  }

  private answer(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>, confirmed: readonly boolean[], rows: readonly TriggerFireRow[]): void {
    let next = 0;
    group.forEach((call, index) => (confirmed[index] ? call.resolve(rows[next++]!) : call.reject(new StaleTargetError())));
  }

  /** When a group cannot be written: each of its fires recorded alone, in its own transaction. */
  private async recordEachAlone(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>): Promise<void> {
    // What the last group left is no longer known.
    this.settled = null;
    for (const call of group) await recordFire(this.services, call.input, this.services.transactions, (trx) => this.confirmOne(trx, call.input.target)).then(call.resolve, call.reject);
  }

  /**
   * The group's confirmation (webhook-targets.ts) and the fires recorded for its delivery ids. On PostgreSQL one
   * statement, each read as JSON: the group's round trips go from three to two.
   */
  private async readGroup(
    db: Kysely<Database>,
    inputs: readonly WebhookFireInput[],
  ): Promise<GroupConfirmation & { deliveries: Map<string, RecordedDelivery>; rows: ConfirmationRow[] }> {
    const targets = inputs.map((input) => input.target);
    if (this.services.dialect !== 'postgres') return { ...(await this.targets.confirm(db, targets)), deliveries: await recordedDeliveries(db, 'sqlite', inputs), rows: [] };
    const ids = deliveryIdsOf(inputs);
    const query = sql<{ confirmation: ConfirmationRow[]; deliveries: RecordedDeliveryRow[] }>`select
      (select coalesce(json_agg(c), '[]'::json) from (${confirmationQuery('postgres', targets)}) c) as confirmation,
      (select coalesce(json_agg(d), '[]'::json) from (${recordedDeliveriesQuery('postgres', ids)}) d) as deliveries`.compile(db);
    // Its text is the same for every group (arrays, not lists), so it is planned once per connection.
    preparedOnPostgres(query.sql);
    const { rows } = await db.executeQuery(query);
    const [read] = rows;
    if (!read) throw new Error('the group read returned no row');
    return { ...this.targets.confirmedBy(read.confirmation, targets), deliveries: recordedDeliveriesOf(read.deliveries, inputs), rows: read.confirmation };
  }

  private async confirmOne(trx: Transaction<Database>, target: WebhookTarget): Promise<void> {
    const { confirmed } = await this.targets.confirm(trx, [target]);
    if (!confirmed[0]) throw new StaleTargetError();
  }
}
