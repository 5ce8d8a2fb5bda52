import type { Command } from 'commander';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import { CliError, type CliDeps } from './deps.js';
import { printJson, printTable, timeCell } from './output.js';
import { peopleNames } from './people.js';
import { resolveProjectRef } from './project-ref.js';
import { readSecretInput } from './secret-input.js';

interface Project {
  id: string;
  name: string;
  slug: string;
  default_branch: string;
  repo_url: string | null;
  repository: string;
  clone_url: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface ProjectCreateOptions {
  name: string;
  slug?: string;
  defaultBranch?: string;
  repoUrl?: string;
  gitUsername?: string;
  gitTokenStdin?: boolean;
  /** commander's `--no-check`: false skips reading repo_url before creating. */
  check?: boolean;
  json?: boolean;
}

export async function runProjectCreate(options: ProjectCreateOptions, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  if ((options.gitTokenStdin || options.gitUsername !== undefined) && !options.repoUrl) {
    throw new CliError('--git-token-stdin and --git-username are for reading --repo-url; a project without it is hosted by svc and needs no git credentials.', 2);
  }
  const gitToken = options.gitTokenStdin ? await readSecretInput(deps, 'Token that may read the repository (not shown): ') : undefined;
  const { body } = await client.request<{ project: Project }>('POST', '/v1/projects', {
    body: {
      name: options.name,
      slug: options.slug,
      default_branch: options.defaultBranch,
      repo_url: options.repoUrl,
      git_token: gitToken,
      git_username: options.gitUsername,
      check_repo: options.check === false ? false : undefined,
    },
    fieldNames: { name: 'the project name', git_token: 'the token on standard input', check_repo: '--no-check' },
  });
  if (options.json) return printJson(deps, body.project);
  deps.stdout.write(`${body.project.id}\n`);
  const credentials = options.repoUrl ? '' : ' (any user name; a token with project.read is the password)';
  deps.stderr.write(`Created project ${body.project.slug}; clone it with: git clone ${body.project.clone_url}${credentials}\n`);
}

export async function runProjectLs(options: { json?: boolean }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const { body } = await client.request<{ projects: Project[] }>('GET', '/v1/projects');
  if (options.json) return printJson(deps, body.projects);
  if (body.projects.length === 0 && deps.isTTY) {
    deps.stderr.write('No projects yet; create one with: svc project create <name>\n');
    return;
  }
  printTable(deps, body.projects, [
    { header: 'id', value: (p) => p.id },
    { header: 'slug', value: (p) => p.slug },
    { header: 'name', value: (p) => p.name },
    { header: 'branch', value: (p) => p.default_branch },
    { header: 'repository', value: (p) => p.repository },
    { header: 'created', value: (p) => timeCell(deps, p.created_at) },
  ]);
}

export async function runProjectShow(ref: string | undefined, options: { json?: boolean }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const projectId = await resolveProjectRef(client, ref, deps);
  const { body } = await client.request<{ project: Project }>('GET', `/v1/projects/${projectId}`);
  const project = body.project;
  if (options.json) return printJson(deps, project);
  const nameOf = await peopleNames(client, project.id, [project.created_by]);
  const rows: Array<[string, string]> = [
    ['project', project.id],
    ['slug', project.slug],
    ['name', project.name],
    ['branch', project.default_branch],
    ['repository', project.repo_url ? `mirror of ${project.repo_url}` : 'hosted by svc'],
    ['clone', project.clone_url],
    ['created', `${timeCell(deps, project.created_at)} by ${nameOf(project.created_by)}`],
  ];
  for (const [label, value] of rows) deps.stdout.write(`${label.padEnd(12)}${value}\n`);
}

export interface ProjectUpdateOptions {
  name?: string;
  defaultBranch?: string;
  json?: boolean;
}

export async function runProjectUpdate(ref: string | undefined, options: ProjectUpdateOptions, deps: CliDeps): Promise<void> {
  if (options.name === undefined && options.defaultBranch === undefined) throw new CliError('Nothing to change: pass --name <name> and/or --default-branch <branch>.', 2);
  const client = new ApiClient(resolveCredentials(deps));
  const projectId = await resolveProjectRef(client, ref, deps);
  const { body } = await client.request<{ project: Project }>('PATCH', `/v1/projects/${projectId}`, {
    body: { name: options.name, default_branch: options.defaultBranch },
  });
  if (options.json) return printJson(deps, body.project);
  deps.stderr.write(`Updated project ${body.project.slug}: name ${JSON.stringify(body.project.name)}, default branch ${body.project.default_branch}.\n`);
}

export async function runProjectRm(ref: string, options: { yes?: boolean }, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const projectId = await resolveProjectRef(client, ref, deps);
  const { body } = await client.request<{ project: Project }>('GET', `/v1/projects/${projectId}`);
  const what = body.project.repo_url ? 'its change requests, sessions, secrets and tokens (the repository it mirrors is not touched)' : 'its repository, change requests, sessions, secrets and tokens';
  if (!options.yes) throw new CliError(`This deletes project ${body.project.slug} with ${what}, for good; run svc project rm ${ref} --yes to go ahead.`, 2);
  await client.request('DELETE', `/v1/projects/${projectId}`);
  deps.stderr.write(`Deleted project ${body.project.slug} with ${what}.\n`);
}

export function registerProject(program: Command, deps: () => CliDeps): void {
  const project = program.command('project').description('create, list, show, change and delete projects');
  project
    .command('create <name>')
    .description('create a project; without --repo-url svc hosts its git repository')
    .option('--slug <slug>', 'URL name (default: derived from the name)')
    .option('--default-branch <branch>', 'default branch (default main)')
    .option('--repo-url <url>', 'mirror an existing repository (https://, ssh:// or a local path); svc reads it first')
    .option('--git-token-stdin', 'read a token that may read (and push to) --repo-url from standard input, or a prompt; kept as the secret GIT_TOKEN')
    .option('--git-username <name>', 'the user name sent with that token (default x-access-token; x-token-auth for Bitbucket)')
    .option('--no-check', 'create the project without reading --repo-url first (an upstream that is not up yet)')
    .option('--json', 'print the project as JSON')
    .action((name: string, options: Omit<ProjectCreateOptions, 'name'>) => runProjectCreate({ ...options, name }, deps()));
  project
    .command('ls')
    .description('list the projects this token can see')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => runProjectLs(options, deps()));
  project
    .command('show [project]')
    .description('show a project (id or slug; default: SVC_PROJECT_ID or the linked project)')
    .option('--json', 'print JSON')
    .action((ref: string | undefined, options: { json?: boolean }) => runProjectShow(ref, options, deps()));
  project
    .command('update [project]')
    .description('rename a project or change its default branch (needs project.admin)')
    .option('--name <name>', 'the new name')
    .option('--default-branch <branch>', 'a branch the repository has')
    .option('--json', 'print the project as JSON')
    .action((ref: string | undefined, options: ProjectUpdateOptions) => runProjectUpdate(ref, options, deps()));
  project
    .command('rm <project>')
    .description('delete a project with its change requests, sessions, secrets, tokens and hosted repository')
    .option('--yes', 'delete without asking')
    .action((ref: string, options: { yes?: boolean }) => runProjectRm(ref, options, deps()));
}
