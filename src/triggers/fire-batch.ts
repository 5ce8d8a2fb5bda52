/**
 * Webhook fires that arrive together are recorded together: one transaction, one count of each account's
 * queue and slots, one insert and one `last_fired_at` per trigger for the whole group, and each delivery is
 * answered after the commit. On PostgreSQL a fire recorded alone cost five round trips, and writing them
 * was most of the receiver's time.
 *
 * Each fire gets the decisions it would get recorded alone (`recordFiresIn`, record-fire.ts). If the group
 * cannot commit (two replicas recording one delivery at once, say), each of its fires is recorded alone.
 */
import type { Services } from '../context.js';
import { CallBatches, type PendingCall } from '../db/call-batches.js';
import { recordFire, recordFiresIn, type FireInput } from './record-fire.js';
import type { TriggerFireRow } from './trigger-row.js';

/** At most this many fires share a transaction, so one commit never holds up the others for long. */
const MAX_FIRES_PER_GROUP = 64;

export class FireBatch {
  private readonly calls: CallBatches<FireInput, TriggerFireRow>;

  constructor(private readonly services: Services) {
    this.calls = new CallBatches(MAX_FIRES_PER_GROUP, (group) => this.recordGroup(group));
  }

  /** Records the fire beside the others that arrive with it; resolves once it is committed. */
  record(input: FireInput): Promise<TriggerFireRow> {
    return this.calls.submit(input);
  }

  private async recordGroup(group: Array<PendingCall<FireInput, TriggerFireRow>>): Promise<void> {
    const settings = { maxSessions: this.services.config.sessions.maxSessions, dialect: this.services.dialect };
    let rows: TriggerFireRow[];
    try {
      rows = await this.services.db.transaction().execute((trx) => recordFiresIn(trx, settings, group.map((call) => call.input)));
    } catch {
      for (const call of group) await recordFire(this.services, call.input).then(call.resolve, call.reject);
      return;
    }
    group.forEach((call, index) => call.resolve(rows[index]!));
  }
}
