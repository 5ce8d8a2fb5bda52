import type { ActorContext } from '../context.js';
import { readJson } from '../db/values.js';
import { AppError, notFound } from '../errors.js';
import { isUuid, newId } from '../ids.js';
import { capabilitiesOn, loadProjectFor, requireUserToken, type ProjectRow } from './access.js';
import { forgetCachedPrincipals } from './principal.js';
import { CAPABILITIES, type Capability } from './capabilities.js';
import { generateToken, hashToken } from './token-secrets.js';
import { loadUserFor } from './user-lookup.js';

export interface CreateProjectTokenInput {
  name: string;
  capabilities: Capability[];
  expires_in_days?: number | undefined;
}

export interface CreateUserTokenInput {
  name: string;
  expires_in_days?: number | undefined;
}

export interface TokenSummary {
  id: string;
  name: string;
  kind: 'user' | 'project' | 'sandbox';
  project_id: string | null;
  capabilities: Capability[];
  /** The user the token acts for (user tokens) or who created it (project tokens): it works while they have access. */
  created_by: string;
  created_at: string;
  expires_at: string | null;
}

/** A project's tokens are project settings (contract §2): managed by people who hold project.admin on it. */
export async function loadProjectForTokens(ctx: ActorContext, projectId: string, action: string): Promise<ProjectRow> {
  requireUserToken(ctx, action);
  return loadProjectFor(ctx, projectId, 'project.admin', action);
}

function expiry(now: Date, days: number | undefined): string | null {
  return days ? new Date(now.getTime() + days * 86_400_000).toISOString() : null;
}

async function insertToken(ctx: ActorContext, summary: TokenSummary, token: string): Promise<void> {
  await ctx.db
    .insertInto('tokens')
    .values({
      id: summary.id,
      account_id: ctx.actor.accountId,
      kind: summary.kind,
      name: summary.name,
      token_hash: hashToken(token),
      user_id: summary.created_by,
      project_id: summary.project_id,
      capabilities: JSON.stringify(summary.capabilities),
      created_at: summary.created_at,
      expires_at: summary.expires_at,
    })
    .execute();
}

/**
 * Mints a project token; the secret is returned here once and only its hash is kept. A token never grants
 * more than its creator holds: asking for a capability the creator lacks on the project is refused, and
 * the token keeps only what its creator still holds each time it is used (see principal.ts).
 */
export async function createProjectToken(ctx: ActorContext, projectId: string, input: CreateProjectTokenInput): Promise<{ token: string; summary: TokenSummary }> {
  const project = await loadProjectForTokens(ctx, projectId, 'mint project tokens');
  const capabilities = [...new Set(input.capabilities)];
  const held = await capabilitiesOn(ctx, project);
  const beyond = capabilities.filter((capability) => !held.includes(capability));
  if (beyond.length > 0) {
    throw new AppError('FORBIDDEN', `A token cannot grant more than its creator holds: you lack ${beyond.join(' and ')} on project ${project.slug}. Leave ${beyond.length === 1 ? 'it' : 'them'} out.`);
  }
  const token = generateToken('project');
  const now = new Date();
  const summary: TokenSummary = {
    id: newId(),
    name: input.name,
    kind: 'project',
    project_id: project.id,
    capabilities,
    created_by: ctx.actor.userId,
    created_at: now.toISOString(),
    expires_at: expiry(now, input.expires_in_days),
  };
  await insertToken(ctx, summary, token);
  return { token, summary };
}

const SUMMARY_COLUMNS = ['id', 'name', 'kind', 'project_id', 'capabilities', 'user_id', 'created_at', 'expires_at'] as const;

function summarize(row: { id: string; name: string; kind: TokenSummary['kind']; project_id: string | null; capabilities: unknown; user_id: string; created_at: string; expires_at: string | null }): TokenSummary {
  const { user_id, ...rest } = row;
  return { ...rest, capabilities: readJson<Capability[]>(row.capabilities, []), created_by: user_id };
}

export async function listProjectTokens(ctx: ActorContext, projectId: string): Promise<TokenSummary[]> {
  const project = await loadProjectForTokens(ctx, projectId, 'list project tokens');
  const rows = await ctx.db.selectFrom('tokens').select(SUMMARY_COLUMNS).where('project_id', '=', project.id).where('kind', '=', 'project').orderBy('created_at').execute();
  return rows.map(summarize);
}

function checkTokenId(tokenId: string): void {
  if (!isUuid(tokenId)) throw new AppError('BAD_REQUEST', `The token id ${JSON.stringify(tokenId)} is not a UUID; use the id that the token listing shows.`);
}

export async function revokeProjectToken(ctx: ActorContext, projectId: string, tokenId: string): Promise<void> {
  const project = await loadProjectForTokens(ctx, projectId, 'revoke project tokens');
  checkTokenId(tokenId);
  const result = await ctx.db.deleteFrom('tokens').where('id', '=', tokenId).where('project_id', '=', project.id).where('kind', '=', 'project').executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('token', tokenId);
  forgetCachedPrincipals(ctx.db);
}

/** A person's own user tokens: they may list, mint and revoke them; an administrator may do so for anyone. */
export async function listUserTokens(ctx: ActorContext, userRef: string): Promise<TokenSummary[]> {
  const user = await loadUserFor(ctx, userRef, 'list another user’s tokens');
  const rows = await ctx.db.selectFrom('tokens').select(SUMMARY_COLUMNS).where('user_id', '=', user.id).where('kind', '=', 'user').orderBy('created_at').execute();
  return rows.map(summarize);
}

export async function createUserToken(ctx: ActorContext, userRef: string, input: CreateUserTokenInput): Promise<{ token: string; summary: TokenSummary }> {
  const user = await loadUserFor(ctx, userRef, 'mint tokens for another user');
  const token = generateToken('user');
  const now = new Date();
  const summary: TokenSummary = {
    id: newId(),
    name: input.name,
    kind: 'user',
    project_id: null,
    capabilities: [...CAPABILITIES],
    created_by: user.id,
    created_at: now.toISOString(),
    expires_at: expiry(now, input.expires_in_days),
  };
  await insertToken(ctx, summary, token);
  return { token, summary };
}

export async function revokeUserToken(ctx: ActorContext, userRef: string, tokenId: string): Promise<void> {
  const user = await loadUserFor(ctx, userRef, 'revoke another user’s tokens');
  checkTokenId(tokenId);
  const result = await ctx.db.deleteFrom('tokens').where('id', '=', tokenId).where('user_id', '=', user.id).where('kind', '=', 'user').executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('token', tokenId);
  forgetCachedPrincipals(ctx.db);
}
