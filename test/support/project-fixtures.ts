/**
 * A hosted project with a first commit, as a user makes one: created through the API, its repository
 * initialised in a work tree of the test's own and pushed. Session and trigger tests build on it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { git, gitAsync, tempDir } from '../../src/git/testing/fixtures.js';
import type { TestServer } from './test-server.js';

export interface HostedProject {
  id: string;
  slug: string;
  clone_url: string;
  /** The work tree the first commit was made in (later edits start from it). */
  work: string;
}

/** The project's clone URL with the server's admin token as the password. */
export function pushUrl(server: TestServer, project: { clone_url: string }): string {
  const url = new URL(project.clone_url);
  url.username = 'x';
  url.password = server.adminToken;
  return url.toString();
}

export function commitAll(work: string, message: string): void {
  git(['add', '-A'], { cwd: work });
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', message], { cwd: work });
}

/** A new project whose first commit holds `files`, pushed to each of `branches`. */
export async function hostedProject(server: TestServer, name: string, files: Record<string, string>, branches: readonly string[] = ['main']): Promise<HostedProject> {
  const created = await server.request('POST', '/v1/projects', { body: { name } });
  if (created.status !== 201) throw new Error(`project not created: ${created.status} ${created.text}`);
  const project = created.body.project as Omit<HostedProject, 'work'>;
  const work = tempDir();
  git(['init', '-q', '-b', 'main', work]);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), text);
  }
  commitAll(work, 'Start');
  await gitAsync(['push', '-q', pushUrl(server, project), ...branches.map((branch) => `HEAD:${branch}`)], { cwd: work });
  return { ...project, work };
}
