import type { Command } from 'commander';
import { CAPABILITIES } from '../accounts/capabilities.js';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import { CliError, type CliDeps } from './deps.js';
import { parseIntegerOption } from './options.js';
import { printJson, printTable, timeCell } from './output.js';
import { peopleNames } from './people.js';
import { resolveProjectRef } from './project-ref.js';

export interface TokenCreateOptions {
  project?: string;
  name: string;
  capability: string[];
  expiresInDays?: number;
  json?: boolean;
}

export async function runTokenCreate(options: TokenCreateOptions, deps: CliDeps): Promise<void> {
  const unknown = options.capability.filter((c) => !(CAPABILITIES as readonly string[]).includes(c));
  if (unknown.length > 0) throw new CliError(`Unknown capability ${unknown.join(', ')}; choose from: ${CAPABILITIES.join(', ')}`, 2);
  if (options.capability.length === 0) throw new CliError(`Name at least one --capability (${CAPABILITIES.join(', ')}).`, 2);
  const client = new ApiClient(resolveCredentials(deps));
  const projectId = await resolveProjectRef(client, options.project, deps);
  const { body } = await client.request<{ token: string; id: string; capabilities: string[] }>('POST', `/v1/projects/${projectId}/tokens`, {
    body: { name: options.name, capabilities: options.capability, expires_in_days: options.expiresInDays },
    fieldNames: { capabilities: '--capability' },
  });
  if (options.json) return printJson(deps, body);
  deps.stdout.write(`${body.token}\n`);
  deps.stderr.write(`Token ${body.id} with ${body.capabilities.join(', ')}; it is shown only this once.\n`);
}

interface TokenSummary {
  id: string;
  name: string;
  kind: string;
  project_id: string | null;
  capabilities: string[];
  created_by: string;
  created_at: string;
  expires_at: string | null;
}

export interface TokenListOptions {
  project?: string;
  user?: string;
  json?: boolean;
}

/** Where the tokens a command lists or revokes live: a user's (`--user`), else the project's. */
async function tokenCollection(client: ApiClient, options: { project?: string; user?: string }, deps: CliDeps): Promise<{ path: string; projectId: string | null }> {
  if (options.user !== undefined) {
    if (options.project !== undefined) throw new CliError('Pass --project (its project tokens) or --user (their user tokens), not both.', 2);
    return { path: `/v1/users/${encodeURIComponent(options.user)}/tokens`, projectId: null };
  }
  const projectId = await resolveProjectRef(client, options.project, deps);
  return { path: `/v1/projects/${projectId}/tokens`, projectId };
}

export async function runTokenLs(options: TokenListOptions, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const { path, projectId } = await tokenCollection(client, options, deps);
  const { body } = await client.request<{ tokens: TokenSummary[] }>('GET', path);
  if (options.json) return printJson(deps, body.tokens);
  if (body.tokens.length === 0 && deps.isTTY) {
    deps.stderr.write(options.user !== undefined ? 'No user tokens.\n' : 'No project tokens yet; mint one with: svc token create --capability …\n');
    return;
  }
  const nameOf = projectId ? await peopleNames(client, projectId, body.tokens.map((t) => t.created_by)) : null;
  printTable(deps, body.tokens, [
    { header: 'id', value: (t) => t.id },
    { header: 'name', value: (t) => t.name },
    { header: 'capabilities', value: (t) => (t.kind === 'user' ? '(everything its user may do)' : t.capabilities.join(' ')) },
    ...(nameOf ? [{ header: 'created by', value: (t: TokenSummary) => nameOf(t.created_by) }] : []),
    { header: 'created', value: (t) => timeCell(deps, t.created_at) },
    { header: 'expires', value: (t) => (t.expires_at ? t.expires_at.slice(0, 10) : 'never') },
  ]);
}

export async function runTokenRm(id: string, options: { project?: string; user?: string }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const { path } = await tokenCollection(client, options, deps);
  await client.request('DELETE', `${path}/${encodeURIComponent(id)}`);
  deps.stderr.write(`Revoked token ${id}; it stops working at once.\n`);
}

export function registerToken(program: Command, deps: () => CliDeps): void {
  const token = program.command('token').description('mint, list and revoke tokens');
  token
    .command('create')
    .description('mint a project token (printed once)')
    .option('--project <project>', 'project id or slug (default: SVC_PROJECT_ID or the linked project)')
    .option('--name <name>', 'a label for the token', 'cli')
    .option('--capability <capability...>', `capabilities: ${CAPABILITIES.join(', ')}`, [])
    .option('--expires-in-days <days>', 'expire the token after this many days (1 to 3650)', parseIntegerOption('--expires-in-days', 1, 3650))
    .option('--json', 'print JSON')
    .action((options: TokenCreateOptions) => runTokenCreate(options, deps()));
  token
    .command('ls')
    .description("list a project's tokens (never their secrets), or with --user a user's own tokens")
    .option('--project <project>', 'project id or slug (default: SVC_PROJECT_ID or the linked project)')
    .option('--user <user>', 'list the user tokens of this user ("me" for yours; administrators: anyone)')
    .option('--json', 'print JSON')
    .action((options: TokenListOptions) => runTokenLs(options, deps()));
  token
    .command('rm <id>')
    .description('revoke a token by the id svc token ls shows')
    .option('--project <project>', 'project id or slug (default: SVC_PROJECT_ID or the linked project)')
    .option('--user <user>', 'revoke a user token of this user ("me" for yours)')
    .action((id: string, options: { project?: string; user?: string }) => runTokenRm(id, options, deps()));
}
