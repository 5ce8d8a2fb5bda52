import fs from 'node:fs';
import path from 'node:path';

/**
 * `svc link` records the project in the repository's own git directory (`.git/svc-project`), so the link
 * travels with the checkout and never shows up in `git status`.
 */
export function findGitDir(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(dir, '.git');
    if (fs.existsSync(candidate)) {
      const stat = fs.statSync(candidate);
      if (stat.isDirectory()) return candidate;
      const pointer = /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(candidate, 'utf8'));
      if (pointer?.[1]) return path.resolve(dir, pointer[1].trim());
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export function readLinkedProject(cwd: string): string | undefined {
  const gitDir = findGitDir(cwd);
  if (!gitDir) return undefined;
  try {
    return fs.readFileSync(path.join(gitDir, 'svc-project'), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

export function writeLinkedProject(cwd: string, projectId: string): string | null {
  const gitDir = findGitDir(cwd);
  if (!gitDir) return null;
  const file = path.join(gitDir, 'svc-project');
  fs.writeFileSync(file, `${projectId}\n`);
  return file;
}
