/**
 * Statements that run on every webhook delivery, prepared once per PostgreSQL connection: PostgreSQL parses
 * and plans a statement sent without a name on every execution, and for a group of deliveries that was 0.3 ms
 * of planning per round trip, about a quarter of the group's time. Only SQL text marked with
 * `preparedOnPostgres` is prepared (its text must not vary with its values: arrays, not lists of
 * placeholders), so each connection holds a handful of statements, never one per query Kysely builds.
 *
 * A connection pooler in transaction mode in front of PostgreSQL must keep prepared statements
 * (PgBouncer 1.21 and later: max_prepared_statements).
 */
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

const names = new Map<string, string>();
/** Texts marked by mistake with their values in them would each be prepared on every connection: past this, none is. */
const MAX_PREPARED = 100;

/** Marks `text` to be prepared on each connection it runs on; returns it. */
export function preparedOnPostgres(text: string): string {
  if (!names.has(text) && names.size < MAX_PREPARED) names.set(text, `svc_prepared_${names.size + 1}`);
  return text;
}

/**
 * The pool as Kysely uses it, sending marked SQL text as named statements. Each connection plans them once
 * (`plan_cache_mode = force_generic_plan`): left to choose, PostgreSQL kept planning the group read for each
 * group's values (0.45 ms of planning for 0.1 ms of work), where the plan for any values is the same. The setting
 * concerns named statements only; the unnamed ones Kysely sends are planned for their values as before.
 */
export function preparingPool(pool: pg.Pool): PostgresPool {
  const planOnce = new WeakSet<pg.PoolClient>();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      if (!planOnce.has(client)) {
        planOnce.add(client);
        // PostgreSQL before 12 has no such setting; its statements are planned as before.
        await client.query('set plan_cache_mode = force_generic_plan').catch(() => undefined);
      }
      const query = (text: unknown, parameters?: ReadonlyArray<unknown>): unknown => {
        const name = typeof text === 'string' ? names.get(text) : undefined;
        if (name) return client.query({ name, text: text as string, values: parameters as unknown[] });
        // Kysely's other queries, and its cursors (streamed results), as they were.
        return client.query(text as never, parameters as never);
      };
      return { query: query as PostgresPoolClient['query'], release: () => client.release() };
    },
    end: () => pool.end(),
  };
}
