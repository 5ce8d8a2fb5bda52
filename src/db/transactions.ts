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

interface Pending {
  work: TransactionWork<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** At most this many calls share a transaction, so one commit never holds up the process for long. */
const MAX_CALLS_PER_TRANSACTION = 64;

/**
 * Calls that arrive in one turn of the event loop, or while the previous group is committing, share
 * one transaction and run one after another in it, in the order they arrived.
 */
export class GroupCommit implements TransactionRunner {
  private readonly waiting: Pending[] = [];
  private draining = false;

  constructor(private readonly db: Kysely<Database>) {}

  run<T>(work: TransactionWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (this.draining) return;
      this.draining = true;
      // The calls resolved in this turn (a check thread answers a batch of publishes at once) join in.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length > 0) await this.commitGroup(this.waiting.splice(0, MAX_CALLS_PER_TRANSACTION));
    } finally {
      this.draining = false;
    }
  }

  private async commitGroup(group: Pending[]): Promise<void> {
    const results: unknown[] = [];
    let failed: { index: number; error: unknown } | undefined;
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const [index, call] of group.entries()) {
          try {
            results.push(await call.work(trx));
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
        if (index !== failed.index) await this.db.transaction().execute(call.work).then(call.resolve, call.reject);
      }
      return;
    }
    for (const [index, call] of group.entries()) call.resolve(results[index]);
  }
}
