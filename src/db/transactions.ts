/**
 * How operations run their writes. On PostgreSQL every call is a transaction of its own, run beside
 * the others on the pool's connections. On SQLite, which has one connection and one writer, the calls
 * that arrive together share one transaction (group commit): a burst of publishes pays for one BEGIN
 * and one COMMIT, and the pages they share (the dashboards table, the versions index) go to the log
 * once instead of once per publish.
 *
 * Either way a call resolves only once its writes are committed, and a call that throws leaves no
 * writes behind: the shared transaction is rolled back, and the other calls run again, each in a
 * transaction of its own, in the order they arrived.
 */
import type { Kysely, Transaction } from 'kysely';
import { CallBatches, type PendingCall } from './call-batches.js';
import type { Database } from './schema.js';

export type TransactionWork<T> = (trx: Transaction<Database>) => Promise<T>;

export interface TransactionRunner {
  /** Runs `work` in a transaction, alone or beside other calls; resolves once it is committed. */
  run<T>(work: TransactionWork<T>): Promise<T>;
}

/** One transaction per call. */
export function separateTransactions(db: Kysely<Database>): TransactionRunner {
  return { run: (work) => db.transaction().execute(work) };
}

/** At most this many calls share a transaction, so one commit never holds up the process for long. */
const MAX_CALLS_PER_TRANSACTION = 64;

/**
 * Calls that arrive in one turn of the event loop, or while the previous group is committing, share
 * one transaction and run one after another in it, in the order they arrived.
 */
export class GroupCommit implements TransactionRunner {
  private readonly calls: CallBatches<TransactionWork<unknown>, unknown>;

  constructor(private readonly db: Kysely<Database>) {
    this.calls = new CallBatches(MAX_CALLS_PER_TRANSACTION, (group) => this.commitGroup(group));
  }

  run<T>(work: TransactionWork<T>): Promise<T> {
    return this.calls.submit(work) as Promise<T>;
  }

  private async commitGroup(group: Array<PendingCall<TransactionWork<unknown>, unknown>>): Promise<void> {
    const results: unknown[] = [];
    let failed: { index: number; error: unknown } | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const [index, call] of group.entries()) {
          try {
            results.push(await call.input(trx));
          } catch (error) {
            failed = { index, error };
            throw error;
          }
        }
      });
    } catch (error) {
      if (!failed) {
        // BEGIN or COMMIT failed: nothing was written, and every call is told why.
        for (const call of group) call.reject(error);
        return;
      }
      group[failed.index]?.reject(failed.error);
      // The rollback undid the writes of the calls before it: they, and the calls after it, run alone.
      for (const [index, call] of group.entries()) {
        if (index !== failed.index) await this.db.transaction().execute(call.input).then(call.resolve, call.reject);
      }
      return;
    }
    for (const [index, call] of group.entries()) call.resolve(results[index]);
  }
}
