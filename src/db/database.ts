import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.js';
import { withFileLock } from './file-lock.js';
import { preparingPool } from './prepared-statements.js';
import { OwnSchemaPostgresDialect } from './postgres-dialect.js';
import { adaptSqlite } from './sqlite-adapter.js';
import { ImmediateSqliteDialect } from './sqlite-dialect.js';
import { WAL_RESTART_BYTES, startCheckpointer } from './sqlite-checkpointer.js';
import type { Database } from './schema.js';
import { GroupCommit, separateTransactions, type TransactionRunner } from './transactions.js';

export type Dialect = 'sqlite' | 'postgres';

/** The driver under Kysely, for libraries that keep their own table (the sign-in throttle). */
export type DriverClient = { dialect: 'sqlite'; sqlite: SqliteDatabase.Database } | { dialect: 'postgres'; pool: pg.Pool };

export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  driver: DriverClient;
  /** Runs writes that may share a transaction with others (see transactions.ts). */
  transactions: TransactionRunner;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite in `dataDir`. */
  databaseUrl?: string | undefined;
  dataDir: string;
}

const TIMESTAMPTZ_OID = 1184;
const INT8_OID = 20;

/** A pg type map that returns timestamps as ISO-8601 strings and counts as numbers, like SQLite does. */
function postgresTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === TIMESTAMPTZ_OID) return (value: string) => new Date(value).toISOString();
      if (oid === INT8_OID) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format);
    },
  } as pg.CustomTypesConfig;
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const url = options.databaseUrl;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({ connectionString: url, types: postgresTypes(), max: 10 });
    const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool: preparingPool(pool) }) });
    const handle: DatabaseHandle = { db, dialect: 'postgres', driver: { dialect: 'postgres', pool }, transactions: separateTransactions(db), close: () => db.destroy() };
    try {
      await migrate(handle);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  }
  fs.mkdirSync(options.dataDir, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  const file = path.join(options.dataDir, 'svc.sqlite');
  const sqlite = new SqliteDatabase(file);
  keepPrivate(file);
  // WAL lets readers run beside the single writer; NORMAL sync is durable across process crashes.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Checkpoints run on a worker thread (see sqlite-checkpointer.ts), not inside requests.
  sqlite.pragma('wal_autocheckpoint = 0');
  // A log the checkpointer starts again is cut back to this size, so a burst does not keep its disk.
  sqlite.pragma(`journal_size_limit = ${WAL_RESTART_BYTES}`);
  const checkpointer = startCheckpointer(file);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: adaptSqlite(sqlite) }) });
  const handle: DatabaseHandle = {
    db,
    dialect: 'sqlite',
    driver: { dialect: 'sqlite', sqlite },
    transactions: new GroupCommit(db),
    close: async () => {
      await db.destroy();
      await checkpointer.stop();
    },
  };
  try {
    await withFileLock(`${file}.migrate-lock`, () => migrate(handle));
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

const PRIVATE_DIRECTORY_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/**
 * The database holds project secrets and token hashes: readable by the server's user only. SQLite
 * gives its -wal and -shm files the database file's mode, so the database is made private before
 * WAL mode creates them; ones an earlier version left readable are made private too.
 */
function keepPrivate(file: string): void {
  for (const one of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      fs.chmodSync(one, PRIVATE_FILE_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

async function migrate(handle: DatabaseHandle): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema; name ours so that several svc databases
  // (schemas selected with search_path) can share one PostgreSQL database.
  const migrationTableSchema =
    handle.dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]?.schema : undefined;
  // Migrations written side by side on different branches may land in another order than their numbers;
  // each is additive and independent of the others, so one that was not run yet runs whatever its number.
  const migrator = new Migrator({ db: handle.db, provider: migrationProvider(handle.dialect), migrationTableSchema, allowUnorderedMigrations: true });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
}

/** True when a database error is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
