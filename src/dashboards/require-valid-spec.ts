import type { ActorContext } from '../context.js';
import { AppError } from '../errors.js';
import type { SpecSummary } from './check-spec.js';

/**
 * The summary of a valid spec, or 400 for a body that is not JSON and 422 DASHBOARD_INVALID listing every
 * violation. `retry` names what to do once they are fixed ("publish", "check").
 */
export async function requireValidSpec(ctx: ActorContext, body: Buffer, retry: string): Promise<SpecSummary> {
  const check = await ctx.specChecker.check(body);
  if (check.kind === 'unreadable') throw new AppError('BAD_REQUEST', check.message);
  if (check.kind === 'invalid') {
    const first = check.issues[0];
    throw new AppError(
      'DASHBOARD_INVALID',
      `The dashboard spec has ${check.total} problem${check.total === 1 ? '' : 's'}${first ? `; the first is ${first.path || '(document)'}: ${first.message}` : ''} Fix every entry in issues and ${retry} again.`,
      { issues: check.issues, total: check.total },
    );
  }
  return check.summary;
}
