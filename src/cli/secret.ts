import type { Command } from 'commander';
import { secretNameProblem } from '../secret-name.js';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import { CliError, type CliDeps } from './deps.js';
import { printJson, printTable, timeCell } from './output.js';
import { resolveProjectRef } from './project-ref.js';
import { readSecretInput } from './secret-input.js';

interface SecretSummary {
  name: string;
  created_at: string;
  updated_at: string;
}

async function secretsPath(options: { project?: string }, deps: CliDeps): Promise<{ client: ApiClient; path: string }> {
  const client = new ApiClient(resolveCredentials(deps));
  const projectId = await resolveProjectRef(client, options.project, deps);
  return { client, path: `/v1/projects/${projectId}/secrets` };
}

/** The value comes from standard input or a prompt that does not echo it: never from the command line. */
export async function runSecretSet(name: string, options: { project?: string }, deps: CliDeps): Promise<void> {
  const problem = secretNameProblem(name);
  if (problem) throw new CliError(problem.message, 2);
  const { client, path } = await secretsPath(options, deps);
  const value = await readSecretInput(deps, `Value of ${name} (not shown): `);
  const { body } = await client.request<{ created: boolean }>('PUT', `${path}/${encodeURIComponent(name)}`, { body: { value }, fieldNames: { value: 'the value' } });
  deps.stderr.write(`${body.created ? 'Created' : 'Replaced'} secret ${name}; sessions started from now on get it as an environment variable.\n`);
}

export async function runSecretLs(options: { project?: string; json?: boolean }, deps: CliDeps): Promise<void> {
  const { client, path } = await secretsPath(options, deps);
  const { body } = await client.request<{ secrets: SecretSummary[] }>('GET', path);
  if (options.json) return printJson(deps, body.secrets);
  if (body.secrets.length === 0 && deps.isTTY) {
    deps.stderr.write('No secrets yet; set one with: svc secret set <NAME> (the value is read from standard input or a prompt).\n');
    return;
  }
  printTable(deps, body.secrets, [
    { header: 'name', value: (s) => s.name },
    { header: 'updated', value: (s) => timeCell(deps, s.updated_at) },
  ]);
}

export async function runSecretRm(name: string, options: { project?: string }, deps: CliDeps): Promise<void> {
  const { client, path } = await secretsPath(options, deps);
  await client.request('DELETE', `${path}/${encodeURIComponent(name)}`);
  deps.stderr.write(`Deleted secret ${name}.\n`);
}

export function registerSecret(program: Command, deps: () => CliDeps): void {
  const secret = program.command('secret').description("set, list and delete a project's secrets (values are never shown)");
  const projectOption = ['--project <project>', 'project id or slug (default: SVC_PROJECT_ID or the linked project)'] as const;
  secret
    .command('set <name>')
    .description('create or replace a secret; the value is read from standard input, or typed at a prompt that does not show it')
    .option(...projectOption)
    .action((name: string, options: { project?: string }) => runSecretSet(name, options, deps()));
  secret
    .command('ls')
    .description("list the project's secret names")
    .option(...projectOption)
    .option('--json', 'print JSON')
    .action((options: { project?: string; json?: boolean }) => runSecretLs(options, deps()));
  secret
    .command('rm <name>')
    .description('delete a secret')
    .option(...projectOption)
    .action((name: string, options: { project?: string }) => runSecretRm(name, options, deps()));
}
