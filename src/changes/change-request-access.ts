import { loadProjectFor, type ProjectRow } from '../accounts/access.js';
import type { Capability } from '../accounts/capabilities.js';
import type { ActorContext } from '../context.js';

/** What an operation does to change requests, and so which capabilities it needs (spec 2 "Authentication"). */
export type ChangeRequestAction = 'read' | 'open' | 'edit' | 'request-changes' | 'merge';

const NEEDS: Record<ChangeRequestAction, { base: Capability; extra: Capability | null; wording: string }> = {
  read: { base: 'project.read', extra: null, wording: 'read change requests' },
  open: { base: 'project.write', extra: 'project.gitops.push', wording: 'open change requests' },
  edit: { base: 'project.write', extra: null, wording: 'change change requests' },
  'request-changes': { base: 'project.write', extra: 'project.gitops.push', wording: 'request changes on change requests' },
  merge: { base: 'project.write', extra: 'project.gitops.merge', wording: 'merge change requests' },
};

/**
 * The project a CR operation acts in, after checking that the token may do `action` there: 404 for a
 * project the token cannot see, 403 for a missing access or capability. Every operation starts here.
 */
export async function loadProjectForChangeRequests(ctx: ActorContext, projectId: string, action: ChangeRequestAction): Promise<ProjectRow> {
  const need = NEEDS[action];
  return loadProjectFor(ctx, projectId, need.extra ? [need.base, need.extra] : need.base, need.wording);
}
