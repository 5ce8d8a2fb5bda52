import type { Command } from 'commander';
import { ApiClient } from './api-client.js';
import { resolveCredentials } from './cli-config.js';
import { CliError, type CliDeps } from './deps.js';
import { findGitDir, writeLinkedProject } from './link-file.js';
import { resolveProjectRef } from './project-ref.js';

interface Project {
  id: string;
  slug: string;
}

/**
 * `svc link <project>`: records the project in the working directory's repository, so `svc cr` commands
 * run there need no --project (outside a session sandbox, where SVC_PROJECT_ID does that job).
 */
export async function runLink(project: string, deps: CliDeps): Promise<void> {
  const gitDir = findGitDir(deps.cwd);
  if (!gitDir) throw new CliError(`${deps.cwd} is not inside a git repository; run svc link from your checkout (git clone <clone_url> first).`);
  const client = new ApiClient(resolveCredentials(deps));
  // Resolving through the API checks that the project exists and that this token can see it.
  const projectId = await resolveProjectRef(client, project, deps);
  const { body } = await client.request<{ project: Project }>('GET', `/v1/projects/${projectId}`);
  writeLinkedProject(deps.cwd, body.project.id);
  deps.stderr.write(`Linked this repository to project ${body.project.slug} (${body.project.id}); svc cr commands here now act on it.\n`);
  deps.stdout.write(`${body.project.id}\n`);
}

export function registerLink(program: Command, deps: () => CliDeps): void {
  program
    .command('link <project>')
    .description('link the repository in this directory to a project (id or slug) for svc cr')
    .action((project: string) => runLink(project, deps()));
}
