import type { Command } from 'commander';
import { ApiClient } from './api-client.js';
import { normaliseApiUrl, saveLogin } from './cli-config.js';
import { CliError, type CliDeps } from './deps.js';

export interface LoginOptions {
  url: string;
  token: string;
}

/** Checks the token against the server before storing it, so a typo fails now rather than later. */
export async function runLogin(options: LoginOptions, deps: CliDeps): Promise<void> {
  // `--token "$TOKEN"` with TOKEN unset arrives as an empty string: say so, rather than "not recognised".
  if (options.token.trim() === '') throw new CliError('The token is empty: pass --token <token> (is the variable holding it set?).', 2);
  const apiUrl = normaliseApiUrl(options.url);
  const client = new ApiClient({ apiUrl, token: options.token, source: 'login' });
  const { body } = await client.request<{ projects: unknown[] }>('GET', '/v1/projects');
  const file = saveLogin(deps.env, { url: apiUrl, token: options.token });
  deps.stderr.write(`Logged in to ${client.origin} (${body.projects.length} project${body.projects.length === 1 ? '' : 's'} visible); saved to ${file}\n`);
}

export function registerLogin(program: Command, deps: () => CliDeps): void {
  program
    .command('login')
    .description('store the server URL and a token for later commands (outside a sandbox)')
    .requiredOption('--url <url>', 'server address, e.g. http://127.0.0.1:8080')
    .requiredOption('--token <token>', 'a user or project token')
    .action((options: LoginOptions) => runLogin(options, deps()));
}
