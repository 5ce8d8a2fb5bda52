import { sql } from 'kysely';
import type { Services } from '../context.js';
import { nowIso } from '../db/values.js';
import type { ChangeRequestRow } from './change-request-row.js';

/** Rows per UPDATE: far under both dialects' parameter limits (three parameters per row). */
const UPDATE_BATCH = 200;

interface ShaChange {
  id: string;
  head: string | null;
  base: string | null;
}

/**
 * Spec 2, SHA refresh rules 1–3: open CRs follow the live tips of their branches. Given the tips of the
 * whole repository (one `for-each-ref`), this writes only the rows whose SHAs moved, a batch per UPDATE,
 * and returns the rows as they now are. A branch that is missing keeps its stored SHA (rule 2).
 * Rows that are not open are returned untouched: merged CRs keep the SHAs captured at merge time.
 */
export async function applyLiveTips(ctx: Services, rows: readonly ChangeRequestRow[], tips: ReadonlyMap<string, string> | null): Promise<ChangeRequestRow[]> {
  if (tips === null) return [...rows];
  const now = nowIso();
  const changes: ShaChange[] = [];
  const refreshed = rows.map((row) => {
    if (row.status !== 'open') return row;
    const head = tips.get(row.head_ref) ?? row.head_commit_sha;
    const base = tips.get(row.base_ref) ?? row.base_commit_sha;
    if (head === row.head_commit_sha && base === row.base_commit_sha) return row;
    changes.push({ id: row.id, head, base });
    return { ...row, head_commit_sha: head, base_commit_sha: base, updated_at: now };
  });
  for (let start = 0; start < changes.length; start += UPDATE_BATCH) {
    await writeShaChanges(ctx, changes.slice(start, start + UPDATE_BATCH), now);
  }
  return refreshed;
}

/** One UPDATE for a batch: `CASE id WHEN … THEN …` per column, so 500 refreshed CRs cost a few statements. */
async function writeShaChanges(ctx: Services, batch: readonly ShaChange[], now: string): Promise<void> {
  const caseById = (column: 'head_commit_sha' | 'base_commit_sha', pick: (change: ShaChange) => string | null) =>
    sql<string | null>`case id ${sql.join(
      batch.map((change) => sql`when ${change.id} then ${pick(change)}`),
      sql` `,
    )} else ${sql.ref(column)} end`;
  await ctx.db
    .updateTable('change_requests')
    .set({
      head_commit_sha: caseById('head_commit_sha', (change) => change.head),
      base_commit_sha: caseById('base_commit_sha', (change) => change.base),
      updated_at: now,
    })
    .where(
      'id',
      'in',
      batch.map((change) => change.id),
    )
    // A merge recorded meanwhile keeps the SHAs it captured.
    .where('status', '=', 'open')
    .execute();
}
