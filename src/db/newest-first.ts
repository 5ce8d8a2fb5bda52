/**
 * Listings read newest first a page at a time (sessions, trigger fires): ordered by a time column and then the
 * id, so rows of the same instant keep one order, and continued from the last row of the page before (keyset
 * paging: a row added meanwhile neither shifts a page nor repeats one, as an offset would).
 */
import { sql, type Expression, type SqlBool } from 'kysely';

/** The last row of the page before: where the next page continues. */
export interface PageCursor {
  at: string;
  id: string;
}

/** Rows strictly after `cursor` in newest-first order by (`timeColumn`, the id of the same table). */
export function olderThan(timeColumn: string, cursor: PageCursor): Expression<SqlBool> {
  const table = timeColumn.includes('.') ? `${timeColumn.slice(0, timeColumn.lastIndexOf('.'))}.` : '';
  const time = sql.ref(timeColumn);
  const id = sql.ref(`${table}id`);
  return sql<SqlBool>`(${time} < ${cursor.at} or (${time} = ${cursor.at} and ${id} < ${cursor.id}))`;
}

export interface NewestFirstPage<Row> {
  rows: Row[];
  /** The id to pass as `before` for the next, older page; null when this page holds the oldest. */
  nextBefore: string | null;
}

/** A page from rows read with a limit one past the page's: the extra row only says that another page follows. */
export function pageOf<Row extends { id: string }>(rows: Row[], limit: number): NewestFirstPage<Row> {
  if (rows.length <= limit) return { rows, nextBefore: null };
  const page = rows.slice(0, limit);
  return { rows: page, nextBefore: page[page.length - 1]!.id };
}
