/**
 * The transaction travels in `ctx`: an operation runs its writes with `inTransaction(ctx, (tx) => …)` and
 * passes `tx` (a ctx whose `db` is the transaction) to the operations it calls. Called inside another
 * transaction it joins it, so an operation that spans domains (fire a trigger: claim the trigger, create
 * the session, write an outbox row) commits all of it or none, and operations never open their own.
 *
 * What must not happen unless the writes land (an event other parts react to, a process to start) is
 * handed to `afterCommit`: it runs once the outermost transaction has committed, and never if it rolls back.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

interface WithDatabase {
  db: Kysely<Database>;
}

/** The work waiting for each open outermost transaction to commit. */
const pendingAfterCommit = new WeakMap<Kysely<Database>, Array<() => void>>();

/** `ctx`, with its database being a transaction: what the work of inTransaction is given. */
export type InTransaction<Ctx extends WithDatabase> = Omit<Ctx, 'db'> & { db: Transaction<Database> };

export async function inTransaction<Ctx extends WithDatabase, T>(ctx: Ctx, work: (tx: InTransaction<Ctx>) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return work(ctx as unknown as InTransaction<Ctx>);
  const afterCommit: Array<() => void> = [];
  const result = await ctx.db.transaction().execute((trx: Transaction<Database>) => {
    pendingAfterCommit.set(trx, afterCommit);
    return work({ ...ctx, db: trx });
  });
  for (const run of afterCommit) run();
  return result;
}

/** Runs `run` once `ctx`'s transaction has committed; at once when `ctx` is not in one. */
export function afterCommit(ctx: WithDatabase, run: () => void): void {
  const waiting = ctx.db.isTransaction ? pendingAfterCommit.get(ctx.db) : undefined;
  if (waiting) waiting.push(run);
  else run();
}
