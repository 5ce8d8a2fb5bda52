import { sql, type Kysely } from 'kysely';
import type { MigrationFactory } from './column-types.js';

/**
 * Spec 1's `order` and `groupOrder` are JSON integers with no bounds, such as 3000000000 or 1e300.
 * PostgreSQL's 32-bit `integer` refused them with a 500, while SQLite (dynamically typed) stored them;
 * `double precision` holds every JSON integer a JavaScript client can send, in order.
 */
export const dashboardOrderAnyInteger: MigrationFactory = (dialect) => ({
  async up(db: Kysely<unknown>) {
    if (dialect !== 'postgres') return;
    await sql`alter table dashboards alter column group_order type double precision, alter column sort_order type double precision`.execute(db);
  },
});
