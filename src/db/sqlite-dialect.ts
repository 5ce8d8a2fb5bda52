/**
 * Kysely's SQLite dialect, with write transactions that take SQLite's write lock when they begin.
 *
 * A plain (deferred) BEGIN takes the lock at the transaction's first write. When another connection holds
 * it at that moment (the checkpointer's RESTART pass, or another `--workers` process), or wrote after the
 * transaction's first read, SQLite answers SQLITE_BUSY at once instead of waiting out busy_timeout: a
 * webhook fire (read the queue, then insert) failed with "database is locked" about once in a thousand
 * deliveries under load. BEGIN IMMEDIATE waits for the lock, as busy_timeout says, before anything is read.
 */
import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly sqliteConfig: SqliteDialectConfig) {
    super(sqliteConfig);
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.sqliteConfig);
  }
}
