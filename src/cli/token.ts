import type { Command } from 'commander';
import { CAPABILITIES } from '../accounts/capabilities.js';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import { CliError, type CliDeps } from './deps.js';
import { parseIntegerOption } from './options.js';
import { printJson } from './output.js';
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

export function registerToken(program: Command, deps: () => CliDeps): void {
  const token = program.command('token').description('mint project tokens');
  token
    .command('create')
    .description('mint a project token (printed once)')
    .option('--project <project>', 'project id or slug (default: SVC_PROJECT_ID or the linked project)')
    .option('--name <name>', 'a label for the token', 'cli')
    .option('--capability <capability...>', `capabilities: ${CAPABILITIES.join(', ')}`, [])
    .option('--expires-in-days <days>', 'expire the token after this many days (1 to 3650)', parseIntegerOption('--expires-in-days', 1, 3650))
    .option('--json', 'print JSON')
    .action((options: TokenCreateOptions) => runTokenCreate(options, deps()));
}
