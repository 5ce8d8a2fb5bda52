import type BetterSqlite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const STATEMENT_CACHE_SIZE = 256;

function toSqliteValue(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/**
 * What Kysely's SQLite dialect sees of better-sqlite3, with two differences that matter:
 * - booleans become 0/1 (SQLite has no boolean type and better-sqlite3 refuses JS booleans, while
 *   PostgreSQL wants real ones), so every query is written once for both dialects;
 * - prepared statements are cached by SQL text: Kysely prepares on every execution, and preparing
 *   costs more than running a small indexed query.
 */
export function adaptSqlite(database: BetterSqlite.Database): SqliteDatabase {
  const statements = new Map<string, BetterSqlite.Statement>();

  function prepared(sql: string): BetterSqlite.Statement {
    let statement = statements.get(sql);
    if (!statement) {
      // Kysely's queries come from a bounded set of call sites; the cap only guards against dynamic SQL.
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statement = database.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  }

  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      const statement = prepared(sql);
      return {
        reader: statement.reader,
        all: (parameters) => statement.all(parameters.map(toSqliteValue)),
        run: (parameters) => statement.run(parameters.map(toSqliteValue)),
        iterate: (parameters) => statement.iterate(parameters.map(toSqliteValue)) as IterableIterator<unknown>,
      };
    },
  };
}
