import type { ActorContext } from '../context.js';
import { readJson } from '../db/values.js';
import { AppError, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { loadProjectFor, requireUserToken, type ProjectRow } from './access.js';
import { forgetCachedPrincipals } from './principal.js';
import type { Capability } from './capabilities.js';
import { generateToken, hashToken } from './token-secrets.js';

export interface CreateProjectTokenInput {
  name: string;
  capabilities: Capability[];
  expires_in_days?: number | undefined;
}

export interface TokenSummary {
  id: string;
  name: string;
  kind: 'user' | 'project' | 'sandbox';
  project_id: string | null;
  capabilities: Capability[];
  created_at: string;
  expires_at: string | null;
}

/** A project's tokens are managed by people (user tokens) who may change the project. */
export async function loadProjectForTokens(ctx: ActorContext, projectId: string, action: string): Promise<ProjectRow> {
  requireUserToken(ctx, action);
  return loadProjectFor(ctx, projectId, 'project.write', action);
}

/** Mints a project token; the secret is returned here once and only its hash is kept. */
export async function createProjectToken(
  ctx: ActorContext,
  projectId: string,
  input: CreateProjectTokenInput,
): Promise<{ token: string; summary: TokenSummary }> {
  const project = await loadProjectForTokens(ctx, projectId, 'mint project tokens');
  const token = generateToken('project');
  const now = new Date();
  const capabilities = [...new Set(input.capabilities)];
  const summary: TokenSummary = {
    id: newId(),
    name: input.name,
    kind: 'project',
    project_id: project.id,
    capabilities,
    created_at: now.toISOString(),
    expires_at: input.expires_in_days ? new Date(now.getTime() + input.expires_in_days * 86_400_000).toISOString() : null,
  };
  await ctx.db
    .insertInto('tokens')
    .values({
      id: summary.id,
      account_id: ctx.actor.accountId,
      kind: 'project',
      name: summary.name,
      token_hash: hashToken(token),
      user_id: ctx.actor.userId,
      project_id: project.id,
      capabilities: JSON.stringify(capabilities),
      created_at: summary.created_at,
      expires_at: summary.expires_at,
    })
    .execute();
  return { token, summary };
}

export async function listProjectTokens(ctx: ActorContext, projectId: string): Promise<TokenSummary[]> {
  const project = await loadProjectForTokens(ctx, projectId, 'list project tokens');
  const rows = await ctx.db
    .selectFrom('tokens')
    .select(['id', 'name', 'kind', 'project_id', 'capabilities', 'created_at', 'expires_at'])
    .where('project_id', '=', project.id)
    .where('kind', '=', 'project')
    .orderBy('created_at')
    .execute();
  return rows.map((row) => ({ ...row, capabilities: readJson<Capability[]>(row.capabilities, []) }));
}

export async function revokeProjectToken(ctx: ActorContext, projectId: string, tokenId: string): Promise<void> {
  const project = await loadProjectForTokens(ctx, projectId, 'revoke project tokens');
  if (!isUuid(tokenId)) throw new AppError('BAD_REQUEST', `The token id ${JSON.stringify(tokenId)} is not a UUID.`);
  const result = await ctx.db.deleteFrom('tokens').where('id', '=', tokenId).where('project_id', '=', project.id).where('kind', '=', 'project').executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('token', tokenId);
  forgetCachedPrincipals(ctx.db);
}

