import { requireCapability } from '../accounts/access.js';
import type { ActorContext } from '../context.js';
import { AppError } from '../errors.js';

/** Dashboards belong to the token's account; publishing and deleting need `dashboards.publish`, and replacing and deleting also depend on who owns the dashboard (see ownership.ts). */
export function requirePublish(ctx: ActorContext, action: string): void {
  requireCapability(ctx, 'dashboards.publish', action);
}

/** Reading needs a user token of the account, or a project token that can publish or read its project. */
export function requireRead(ctx: ActorContext): void {
  const { actor } = ctx;
  if (actor.kind === 'project' && !actor.capabilities.includes('dashboards.publish') && !actor.capabilities.includes('project.read')) {
    throw new AppError('FORBIDDEN', 'This token lacks dashboards.publish or project.read, one of which is needed to read dashboards.');
  }
}

export function dashboardUrl(baseUrl: string, slug: string): string {
  return `${baseUrl}/d/${slug}`;
}
