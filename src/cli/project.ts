import type { Command } from 'commander';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import type { CliDeps } from './deps.js';
import { printJson, printTable, timeCell } from './output.js';

interface Project {
  id: string;
  name: string;
  slug: string;
  default_branch: string;
  repository: string;
  clone_url: string;
  created_at: string;
}

export interface ProjectCreateOptions {
  name: string;
  slug?: string;
  defaultBranch?: string;
  repoUrl?: string;
  json?: boolean;
}

export async function runProjectCreate(options: ProjectCreateOptions, deps: CliDeps): Promise<void> {
  const client = new ApiClient(resolveCredentials(deps));
  const { body } = await client.request<{ project: Project }>('POST', '/v1/projects', {
    body: { name: options.name, slug: options.slug, default_branch: options.defaultBranch, repo_url: options.repoUrl },
    fieldNames: { name: 'the project name' },
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

export function registerProject(program: Command, deps: () => CliDeps): void {
  const project = program.command('project').description('create and list projects');
  project
    .command('create <name>')
    .description('create a project; without --repo-url svc hosts its git repository')
    .option('--slug <slug>', 'URL name (default: derived from the name)')
    .option('--default-branch <branch>', 'default branch (default main)')
    .option('--repo-url <url>', 'mirror an existing repository (https://, ssh:// or a local path)')
    .option('--json', 'print the project as JSON')
    .action((name: string, options: Omit<ProjectCreateOptions, 'name'>) => runProjectCreate({ ...options, name }, deps()));
  project
    .command('ls')
    .description('list the projects this token can see')
    .option('--json', 'print JSON')
    .action((options: { json?: boolean }) => runProjectLs(options, deps()));
}
