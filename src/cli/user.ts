import type { Command } from 'commander';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import type { CliDeps } from './deps.js';
import { printJson, printTable, timeCell } from './output.js';
import { readSecretInput } from './secret-input.js';

interface User {
  id: string;
  name: string;
  admin: boolean;
  disabled: boolean;
  created_at: string;
}

export interface UserCreateOptions {
  admin?: boolean;
  passwordStdin?: boolean;
  json?: boolean;
}

/** Administrators add people; the new user's first token is printed once, for them to log in with. */
export async function runUserCreate(name: string, options: UserCreateOptions, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const password = options.passwordStdin ? await readSecretInput(deps, `Password for ${name} (not shown): `) : undefined;
  const { body } = await client.request<{ user: User; token: string }>('POST', '/v1/users', {
    body: { name, password, admin: options.admin },
    fieldNames: { name: 'the user name', password: 'the password' },
  });
  if (options.json) return printJson(deps, body);
  deps.stdout.write(`${body.token}\n`);
  deps.stderr.write(
    `Created ${body.user.admin ? 'administrator' : 'user'} ${body.user.name}; the token above is shown only this once. ` +
      `They log in with: svc login --url ${client.origin} --token <token>${password ? ', or sign in to the web pages with their password' : ''}.\n`,
  );
}

export async function runUserLs(options: { json?: boolean }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const { body } = await client.request<{ users: User[] }>('GET', '/v1/users');
  if (options.json) return printJson(deps, body.users);
  printTable(deps, body.users, [
    { header: 'name', value: (u) => u.name },
    { header: 'role', value: (u) => (u.admin ? 'administrator' : 'user') },
    { header: 'status', value: (u) => (u.disabled ? 'disabled' : 'active') },
    { header: 'created', value: (u) => timeCell(deps, u.created_at) },
    { header: 'id', value: (u) => u.id },
  ]);
}

export function registerUser(program: Command, deps: () => CliDeps): void {
  const user = program.command('user').description('add and list the people of the account (administrators)');
  user
    .command('create <name>')
    .description("add a user; prints their first token once (letters, digits, '.', '_' and '-')")
    .option('--admin', 'make them an administrator')
    .option('--password-stdin', 'read a password for the web pages from standard input, or a prompt that does not show it')
    .option('--json', 'print JSON')
    .action((name: string, options: UserCreateOptions) => runUserCreate(name, options, deps()));
  user
    .command('ls')
    .description('list the users of the account')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => runUserLs(options, deps()));
}
