import type { ActorContext } from '../context.js';
import { olderThan, pageOf } from '../db/newest-first.js';
import type { SessionStatus } from '../db/schema.js';
import { validationFailed } from '../errors.js';
import { isUuid } from '../ids.js';
import { loadProjectForSessions } from './session-access.js';
import type { SessionRow } from './session-row.js';

/** The most sessions one page lists, and how many when the caller names no limit. */
export const MAX_SESSIONS_PER_PAGE = 500;

export interface ListSessionsInput {
  projectId: string;
  /** Only sessions in one of these. */
  statuses?: readonly SessionStatus[] | undefined;
  trigger?: string | undefined;
  /** Only sessions whose id begins with this: hex digits and dashes, which no LIKE pattern treats specially. */
  idPrefix?: string | undefined;
  /** At most this many (1 to 500, the default). */
  limit?: number | undefined;
  /** Only sessions older than this one: the `next_before` of the page before. */
  before?: string | undefined;
  /** Count the project's sessions too, whatever their status (the web list's heading). */
  withTotal?: boolean;
}

export interface SessionsPage {
  sessions: SessionRow[];
  /** The id to pass as `before` for the next, older page; null when this page holds the oldest. */
  nextBefore: string | null;
  /** With `withTotal`: how many sessions the project has. */
  total?: number;
}

/** GET …/sessions: newest first, optionally by status or by the trigger that started them, a page at a time. */
export async function listSessions(ctx: ActorContext, input: ListSessionsInput): Promise<SessionsPage> {
  const project = await loadProjectForSessions(ctx, input.projectId, 'read');
  const limit = input.limit ?? MAX_SESSIONS_PER_PAGE;
  let query = ctx.db.selectFrom('sessions').selectAll().where('project_id', '=', project.id);
  if (input.statuses) query = query.where('status', 'in', input.statuses);
  if (input.trigger) query = query.where('trigger_slug', '=', input.trigger);
  if (input.idPrefix) query = query.where('id', 'like', `${input.idPrefix.toLowerCase()}%`);
  if (input.before !== undefined) {
    const after = isUuid(input.before)
      ? await ctx.db.selectFrom('sessions').select(['created_at', 'id']).where('project_id', '=', project.id).where('id', '=', input.before.toLowerCase()).executeTakeFirst()
      : undefined;
    if (!after) {
      const message = `${JSON.stringify(input.before.slice(0, 80))} names no session of this project; pass the next_before of the page before, or leave before out for the newest sessions.`;
      throw validationFailed([{ path: '/before', message }], `The querystring request is invalid: /before: ${message}`);
    }
    query = query.where(olderThan('created_at', { at: after.created_at, id: after.id }));
  }
  const [rows, counted] = await Promise.all([
    query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute(),
    input.withTotal ? ctx.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('count')).where('project_id', '=', project.id).executeTakeFirstOrThrow() : undefined,
  ]);
  const page = pageOf(rows, limit);
  return { sessions: page.rows, nextBefore: page.nextBefore, ...(counted && { total: Number(counted.count) }) };
}
