import type { Kysely } from 'kysely';
import type { Principal } from './accounts/principal.js';
import type { Config } from './config.js';
import type { SpecChecker } from './dashboards/check-spec.js';
import type { Dialect } from './db/database.js';
import type { Database } from './db/schema.js';
import type { TransactionRunner } from './db/transactions.js';
import type { DomainEventBus } from './events.js';
import type { SessionServices } from './sessions/session-services.js';

/** What the running server shares with every operation. */
export interface Services {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Writes that may share a transaction with others that arrive together (group commit on SQLite). */
  transactions: TransactionRunner;
  config: Config;
  events: DomainEventBus;
  /** Parses and validates published dashboards, on worker threads. */
  specChecker: SpecChecker;
  /** Sandboxes of sessions, and the key their tokens derive from. */
  sessions: SessionServices;
}

/** One request's view: the shared services plus who is acting. Operations take `(ctx, input)`. */
export interface ActorContext extends Services {
  actor: Principal;
}
