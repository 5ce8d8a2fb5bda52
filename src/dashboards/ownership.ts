/**
 * Who may replace or delete a dashboard, and which project a publish puts it in (contract §3).
 *
 * A dashboard published with a project token belongs to that token's project, whatever the spec's
 * `svc.projectId` says; one published with a user token belongs to the project its `svc.projectId`
 * names when that is a project of the account (the user must be a member), else to no project. A
 * dashboard of a project may be replaced or deleted by that project's tokens, its members and
 * administrators; one without a project (or whose project was deleted) by its publisher and
 * administrators. Everyone in the account may still read every dashboard.
 */
import type { Kysely, Transaction } from 'kysely';
import type { ActorContext } from '../context.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { SpecSummary } from './check-spec.js';
import type { DashboardOwner, PublishingOwner } from './store.js';

type Db = Kysely<Database> | Transaction<Database>;

export async function isProjectMember(db: Db, projectId: string, userId: string): Promise<boolean> {
  const row = await db.selectFrom('project_members').select('user_id').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
  return row !== undefined;
}

/** Throws 403 unless the actor may replace or delete this dashboard (`action` says which). */
export async function assertMayChange(ctx: ActorContext, db: Db, slug: string, owner: DashboardOwner, action: 'replace' | 'delete'): Promise<void> {
  const { actor } = ctx;
  if (actor.kind === 'user' && actor.isAdmin) return;
  const name = JSON.stringify(slug);
  // A refused replace can still publish its page under a slug of its own; a refused delete has nothing to try instead.
  const instead = action === 'replace' ? ', or publish under another slug' : '';
  if (owner.projectId !== null) {
    const project = owner.projectSlug ?? owner.projectId;
    if (actor.kind === 'project') {
      if (actor.projectId === owner.projectId) return;
      throw new AppError(
        'FORBIDDEN',
        `Dashboard ${name} belongs to project ${project}, and this token is of another project, so it cannot ${action} it; use a token of project ${project} with dashboards.publish (or a user token of one of its members)${instead}.`,
      );
    }
    if (await isProjectMember(db, owner.projectId, actor.userId)) return;
    throw new AppError(
      'FORBIDDEN',
      `Dashboard ${name} belongs to project ${project}, which you are not a member of, so you cannot ${action} it; ask an administrator to add you to project ${project}${instead}.`,
    );
  }
  if (actor.kind === 'user' && owner.publishedBy === actor.userId) return;
  const publisher = owner.publisherName === null ? 'an administrator' : `its publisher (${owner.publisherName}) or an administrator`;
  const withToken = actor.kind === 'project' ? ', with a user token: a project token acts only on its own project’s dashboards' : '';
  throw new AppError('FORBIDDEN', `Dashboard ${name} belongs to no project, so only ${publisher} may ${action} it${withToken}${action === 'replace' ? '; publish under another slug' : ''}.`);
}

/** The project a publish puts its dashboard in, and the spec text to store (see the file comment). */
export async function publishingOwner(ctx: ActorContext, spec: SpecSummary): Promise<{ owner: PublishingOwner; text: string }> {
  const { actor } = ctx;
  if (actor.kind === 'project' && actor.projectId !== null) {
    return { owner: { projectId: actor.projectId, userId: actor.userId }, text: withProjectId(spec, actor.projectId) };
  }
  const claimed = spec.svc?.projectId;
  if (claimed === undefined) return { owner: { projectId: null, userId: actor.userId }, text: spec.text };
  const project = await ctx.db.selectFrom('projects').select(['id', 'slug']).where('id', '=', claimed).where('account_id', '=', actor.accountId).executeTakeFirst();
  // An id of no project of this account is a context link only, as before projects owned dashboards.
  if (!project) return { owner: { projectId: null, userId: actor.userId }, text: spec.text };
  if (!actor.isAdmin && !(await isProjectMember(ctx.db, project.id, actor.userId))) {
    throw new AppError(
      'FORBIDDEN',
      `svc.projectId names project ${project.slug}, which you are not a member of, so you cannot publish a dashboard into it; ask an administrator to add you to project ${project.slug}, or leave svc.projectId out.`,
    );
  }
  return { owner: { projectId: project.id, userId: actor.userId }, text: spec.text };
}

/**
 * The spec text with `svc.projectId` set to `projectId`. Stored as sent when it already says so; a spec
 * without `svc` gets it written in front of its first key, so the rest stays byte for byte as sent;
 * otherwise the document is written again (a project token that names another project: rare).
 */
function withProjectId(spec: SpecSummary, projectId: string): string {
  if (spec.svc?.projectId === projectId) return spec.text;
  if (spec.svc === null) {
    const brace = spec.text.indexOf('{');
    return `${spec.text.slice(0, brace + 1)}"svc":{"projectId":${JSON.stringify(projectId)}},${spec.text.slice(brace + 1)}`;
  }
  const document = JSON.parse(spec.text) as { svc: Record<string, unknown> };
  document.svc = { ...document.svc, projectId };
  return JSON.stringify(document);
}
