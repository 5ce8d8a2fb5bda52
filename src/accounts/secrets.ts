import type { ActorContext } from '../context.js';
import { nowIso } from '../db/values.js';
import { AppError, notFound } from '../errors.js';
import { secretNameProblem } from '../secret-name.js';
import { loadProjectFor, type ProjectRow } from './access.js';

export interface SecretSummary {
  name: string;
  created_at: string;
  updated_at: string;
}

function checkName(name: string): void {
  const problem = secretNameProblem(name);
  if (problem) throw new AppError(problem.reserved ? 'SECRET_NAME_RESERVED' : 'BAD_REQUEST', problem.message);
}

/** Secrets are project settings (contract §2): setting, replacing and deleting them needs project.admin. */
export function loadProjectToSetSecrets(ctx: ActorContext, projectId: string): Promise<ProjectRow> {
  return loadProjectFor(ctx, projectId, 'project.admin', 'set project secrets');
}

/** Creates or replaces a secret; returns true when it was created. */
export async function putSecret(ctx: ActorContext, projectId: string, name: string, value: string): Promise<boolean> {
  const project = await loadProjectToSetSecrets(ctx, projectId);
  checkName(name);
  const now = nowIso();
  const updated = await ctx.db
    .updateTable('secrets')
    .set({ value, updated_at: now })
    .where('project_id', '=', project.id)
    .where('name', '=', name)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return false;
  await ctx.db
    .insertInto('secrets')
    .values({ project_id: project.id, name, value, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['project_id', 'name']).doUpdateSet({ value, updated_at: now }))
    .execute();
  return true;
}

export async function listSecrets(ctx: ActorContext, projectId: string): Promise<SecretSummary[]> {
  const project = await loadProjectFor(ctx, projectId, 'project.read', 'list project secrets');
  return ctx.db.selectFrom('secrets').select(['name', 'created_at', 'updated_at']).where('project_id', '=', project.id).orderBy('name').execute();
}

export async function deleteSecret(ctx: ActorContext, projectId: string, name: string): Promise<void> {
  const project = await loadProjectFor(ctx, projectId, 'project.admin', 'delete project secrets');
  const result = await ctx.db.deleteFrom('secrets').where('project_id', '=', project.id).where('name', '=', name).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('secret', name);
}

/** For svc itself (git credentials, webhook verification, sandbox environment); never sent to clients. */
export async function readSecretValue(ctx: Pick<ActorContext, 'db'>, projectId: string, name: string): Promise<string | null> {
  const row = await ctx.db.selectFrom('secrets').select('value').where('project_id', '=', projectId).where('name', '=', name).executeTakeFirst();
  return row?.value ?? null;
}
