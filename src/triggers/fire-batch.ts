/**
 * Webhook fires that arrive together are recorded together: one transaction, one count of each account's
 * queue and slots, one insert and one `last_fired_at` per trigger for the whole group, and each delivery is
 * answered after the commit. On PostgreSQL a fire recorded alone cost five round trips, and writing them
 * was most of the receiver's time.
 *
 * Each fire gets the decisions it would get recorded alone (record-fire.ts), in the order they arrived: a
 * fire queued earlier in the group counts among those waiting for the ones after it; a delivery id repeated
 * within the group makes the later one its duplicate; a fire that re-prompts a session (reuse, pinned) plans
 * from what is recorded, so the group's fires before it are written first. If the group cannot commit (two
 * replicas recording one delivery at once, say), each of its fires is recorded alone, as record-fire.ts does.
 */
import type { Transaction } from 'kysely';
import type { Services } from '../context.js';
import { CallBatches, type PendingCall } from '../db/call-batches.js';
import type { Database } from '../db/schema.js';
import { accountSlots, needsSlot, planTarget, waitReasonOf, type AccountSlots } from './plan-fire.js';
import { duplicateOf, duplicateRow, insertFires, markLastFired, plannedFireRow, recordFire, type FireInput } from './record-fire.js';
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
    const maxSessions = this.services.config.sessions.maxSessions;
    let rows: TriggerFireRow[];
    try {
      rows = await this.services.db.transaction().execute((trx) => planGroup(trx, maxSessions, group.map((call) => call.input)));
    } catch {
      for (const call of group) await recordFire(this.services, call.input).then(call.resolve, call.reject);
      return;
    }
    group.forEach((call, index) => call.resolve(rows[index]!));
  }
}

async function planGroup(trx: Transaction<Database>, maxSessions: number, inputs: readonly FireInput[]): Promise<TriggerFireRow[]> {
  const answers: TriggerFireRow[] = [];
  let unwritten: TriggerFireRow[] = [];
  const slots = new Map<string, AccountSlots>();
  const deliveries = new Map<string, TriggerFireRow>();
  const write = async () => {
    await insertFires(trx, unwritten);
    await markLastFired(trx, unwritten.filter((row) => row.status !== 'duplicate'));
    unwritten = [];
    slots.clear();
  };
  const keep = (row: TriggerFireRow) => {
    unwritten.push(row);
    answers.push(row);
  };
  for (const input of inputs) {
    const delivery = input.deliveryId ? `${input.project.id} ${input.trigger.slug} ${input.deliveryId}` : null;
    const sameDelivery = delivery ? deliveries.get(delivery) : undefined;
    if (sameDelivery) {
      keep(duplicateRow(input, sameDelivery.session_id));
      continue;
    }
    const duplicate = input.deliveryId ? await duplicateOf(trx, input, input.deliveryId) : null;
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
