import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import { AppError, notFound } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ChangeRequestRow } from './change-request-row.js';

/** Numbers fit a 32-bit integer column; anything longer cannot name a CR. */
const CR_NUMBER = /^#?([1-9]\d{0,9})$/;

/** How a CR is named in a path or on the command line: its cr_id, or its per-project number (`3` or `#3`). */
export type ChangeRequestRef = { id: string } | { number: number };

export function parseChangeRequestRef(value: string): ChangeRequestRef {
  if (isUuid(value)) return { id: value.toLowerCase() };
  const number = CR_NUMBER.exec(value.trim());
  if (number?.[1] && Number(number[1]) <= 2_147_483_647) return { number: Number(number[1]) };
  throw new AppError('BAD_REQUEST', `${JSON.stringify(value.slice(0, 80))} does not name a change request; use its number (3) or its cr_id (a UUID).`);
}

/** The CR `ref` names inside `project`; 404 when there is none. */
export async function findChangeRequest(ctx: Services, project: ProjectRow, ref: string): Promise<ChangeRequestRow> {
  const parsed = parseChangeRequestRef(ref);
  let query = ctx.db.selectFrom('change_requests').selectAll().where('project_id', '=', project.id);
  query = 'id' in parsed ? query.where('id', '=', parsed.id) : query.where('number', '=', parsed.number);
  const row = await query.executeTakeFirst();
  if (!row) throw notFound('change request', ref);
  return row;
}
