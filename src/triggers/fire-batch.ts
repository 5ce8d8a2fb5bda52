/**
 * Webhook fires that arrive together are recorded together, and each delivery is answered once its group is
 * committed. On PostgreSQL a group of fresh-session fires costs two statements, each prepared once per
 * connection: one read (what the deliveries were checked against, their accounts' queues and slots, and the
 * fires already recorded with their delivery ids) and one write (the insert), with no BEGIN
 * and COMMIT around them; the next group is read while this one is written. A group with none being written
 * before it costs one: its read and its write in one statement, which writes only where it reads what the group
 * before it left (`recordOnCondition`). On SQLite, where a query costs no
 * round trip, a group is one transaction of small queries. A fire recorded alone cost PostgreSQL five round trips.
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

/** A group whose fires are decided and being written; the groups after it are decided knowing them. */
interface GroupInWriting {
  rows: readonly TriggerFireRow[];
  /** Whether it was written as decided (false: its fires were decided again, or recorded one by one). */
  written: Promise<boolean>;
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

/** Groups of fresh-session fires written at once on PostgreSQL: the next group's read overlaps this many writes. */
const MAX_GROUPS_IN_WRITING = 2;

export class FireBatch {
  private readonly calls: CallBatches<WebhookFireInput, TriggerFireRow>;
  private readonly inWriting: GroupInWriting[] = [];
  /** What the last group written left, when no other group was written beside it; null when not known. */
  private settled: Settled | null = null;
  /** A group was written otherwise than decided (or fire by fire): the groups decided knowing it are decided again. */
  private decidedAgain = false;

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
    if (writtenInOneStatement(this.services.dialect, inputs)) return this.recordWhileOthersWrite(group);
    // Reuse and pinned fires plan from what is committed (the session a fire a moment ago will create).
    await Promise.all(this.inWriting.map((earlier) => earlier.written));
    this.settled = null;
    const settings = this.settings();
    let outcome: { confirmed: boolean[]; rows: TriggerFireRow[] };
    try {
      outcome = await this.services.db.transaction().execute(async (trx) => {
        const { confirmed, slots, deliveries } = await this.readGroup(trx, inputs, []);
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
   * A group of fresh-session fires on PostgreSQL: one statement writes it, with no BEGIN and COMMIT (under READ
   * COMMITTED every statement reads afresh, so they would add two round trips and no guarantee). The next group
   * is read and decided while this one is written, so a group waits for one round trip of the one before it, not
   * two: its read leaves out the fires of the groups still being written, which it counts from memory instead, so
   * each fire is decided exactly as if the groups had run one after the other.
   */
  private async recordWhileOthersWrite(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>): Promise<void> {
    while (this.inWriting.length >= MAX_GROUPS_IN_WRITING) await this.inWriting[0]!.written;
    if (this.decidedAgain) {
      // A group was not written as decided, so neither is any decided knowing it: this one waits until they are
      // written, and is decided from what the database then holds (else every group after would be decided twice).
      await Promise.all(this.inWriting.map((writing) => writing.written));
      this.decidedAgain = false;
    }
    const db = this.services.db;
    const settings = this.settings();
    const inputs = group.map((call) => call.input);
    const settled = this.inWriting.length === 0 ? this.settledFor(inputs) : null;
    if (settled) return this.recordOnCondition(group, settled);
    const before = [...this.inWriting];
    const earlier = before.flatMap((writing) => writing.rows);
    let decided: { confirmed: boolean[]; rows: TriggerFireRow[]; read: ConfirmationRow[] } | null = null;
    try {
      const read = await this.readGroup(db, inputs, earlier.map((row) => row.id));
      for (const row of earlier) {
        const account = row.status === 'queued' ? read.slots.get(row.account_id) : undefined;
        if (account) account.waiting += 1;
      }
      const confirmedInputs = inputs.filter((_, index) => read.confirmed[index]);
      const rows = await recordFiresIn(db, settings, confirmedInputs, { slots: read.slots, deliveries: read.deliveries, earlier }, async () => {});
      decided = { confirmed: read.confirmed, rows, read: read.rows };
    } catch {
      // Recorded fire by fire below, once the groups before it are written.
    }
    this.startWriting(decided?.rows ?? [], async () => {
      // Decided knowing the groups before it: written as decided only once they were. A group that could not be
      // (two replicas writing one delivery at once, say) is recorded fire by fire, and so is every group after it.
      const earlierWritten = (await Promise.all(before.map((one) => one.written))).every(Boolean);
      if (decided && earlierWritten) {
        try {
          await writeFires(db, settings.dialect, decided.rows);
          // The read left out the groups before it, each written as decided: with them and this one, it is what the database now holds.
          this.settled = { key: readKeyOf(inputs), rows: settledAfter(decided.read, [...earlier, ...decided.rows]) };
          this.answer(group, decided.confirmed, decided.rows);
          return true;
        } catch {
          // Recorded fire by fire below.
        }
      } else if (!earlierWritten) {
        // What it was decided knowing is not what was written: decided again from what the database holds now.
        try {
          await this.recordAgain(group);
          return false;
        } catch {
          // Recorded fire by fire below.
        }
      }
      await this.recordEachAlone(group);
      return false;
    });
  }

  /**
   * A group decided again once every group before it is written (none of this replica's is being written):
   * read and written as a group with nothing left out of the read, two round trips, where fire by fire cost five
   * each. What it leaves is what the next group is decided from.
   */
  private async recordAgain(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>): Promise<void> {
    const db = this.services.db;
    const settings = this.settings();
    const inputs = group.map((call) => call.input);
    const read = await this.readGroup(db, inputs, []);
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
   * A group with no other being written, when the last one left `settled`: decided from it and written by one
   * statement (one round trip, not two), which reads what `readGroup` reads and writes only if it finds
   * `settled` unchanged and none of the delivery ids recorded. Otherwise nothing is written, and the group is
   * decided again from what the statement read, and written; the groups read meanwhile are recorded fire by fire.
   */
  private async recordOnCondition(group: Array<PendingCall<WebhookFireInput, TriggerFireRow>>, settled: Settled): Promise<void> {
    const db = this.services.db;
    const settings = this.settings();
    const inputs = group.map((call) => call.input);
    let rows: TriggerFireRow[];
    try {
      const slots = this.targets.confirmedBy(settled.rows, inputs.map((input) => input.target), { forget: false }).slots;
      rows = await recordFiresIn(db, settings, inputs, { slots, deliveries: new Map() }, async () => {});
    } catch {
      await this.recordEachAlone(group);
      return;
    }
    this.startWriting(rows, async () => {
      try {
        const found = await this.writeOnCondition(db, inputs, settled.rows, rows);
        if (found.holds) {
          this.settled = { key: settled.key, rows: settledAfter(settled.rows, rows) };
          this.answer(group, inputs.map(() => true), rows);
          return true;
        }
        const read = { ...this.targets.confirmedBy(found.confirmation, inputs.map((input) => input.target)), deliveries: recordedDeliveriesOf(found.deliveries, inputs) };
        const again = await recordFiresIn(db, settings, inputs.filter((_, index) => read.confirmed[index]), read, async () => {});
        await writeFires(db, settings.dialect, again);
        this.settled = { key: settled.key, rows: settledAfter(found.confirmation, again) };
        this.answer(group, read.confirmed, again);
      } catch {
        await this.recordEachAlone(group);
      }
      return false;
    });
  }

  /** Counts the group among those being written (the groups after it are decided knowing `rows`) until `write` settles. */
  private startWriting(rows: readonly TriggerFireRow[], write: () => Promise<boolean>): void {
    const written = write()
      .finally(() => this.inWriting.splice(this.inWriting.indexOf(writing), 1))
      .then((asDecided) => {
        if (!asDecided) this.decidedAgain = true;
        return asDecided;
      });
    const writing: GroupInWriting = { rows, written };
    this.inWriting.push(writing);
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
        (select coalesce(jsonb_agg(c), '[]'::jsonb) from (${confirmationQuery('postgres', targets, [])}) c) as confirmation,
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
    /** Fires still being written, which the accounts' queues are counted without. */
    inWriting: readonly string[],
  ): Promise<GroupConfirmation & { deliveries: Map<string, RecordedDelivery>; rows: ConfirmationRow[] }> {
    const targets = inputs.map((input) => input.target);
    if (this.services.dialect !== 'postgres') return { ...(await this.targets.confirm(db, targets)), deliveries: await recordedDeliveries(db, 'sqlite', inputs), rows: [] };
    const ids = deliveryIdsOf(inputs);
    const query = sql<{ confirmation: ConfirmationRow[]; deliveries: RecordedDeliveryRow[] }>`select
      (select coalesce(json_agg(c), '[]'::json) from (${confirmationQuery('postgres', targets, inWriting)}) c) as confirmation,
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
