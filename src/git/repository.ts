/**
 * Read and setup operations on a bare repository: branch tips, ancestry and file contents.
 * Each is one git process; nothing here takes the repository lock (reads never do).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { assertBranchName, assertRevision, assertTreePath, branchRef } from './arguments.js';
import { GitError, RefNotFoundError } from './errors.js';
import { firstLine, runGit } from './run-git.js';

export interface InitBareOptions {
  /** The branch HEAD names; a project's default branch. */
  defaultBranch: string;
}

/**
 * The second line behind svc's push rules (git-host/guarded-receive.ts reads every push before git does): the
 * branch HEAD names, the default branch, is never updated or deleted by a push; only creating it, while
 * it does not exist, is let through. `receive.denyDeletes` cannot express this (it covers every branch,
 * and session branches must stay deletable). POSIX sh because git runs hooks itself.
 */
const PRE_RECEIVE_HOOK = `#!/bin/sh
# Installed by svc: a push never moves or deletes the default branch (HEAD) of a hosted repository;
# it changes only by merging a change request.
head=$(git symbolic-ref -q HEAD)
while read -r old new ref; do
  if [ "$ref" = "$head" ]; then
    case "$new" in
      *[!0]*) ;;
      *)
        echo "svc: $ref is the default branch of this project and cannot be deleted" >&2
        exit 1
        ;;
    esac
    case "$old" in
      *[!0]*)
        echo "svc: $ref is the default branch of this project; it changes only by merging a change request (svc cr open)" >&2
        exit 1
        ;;
    esac
  fi
done
exit 0
`;

/**
 * Receive policy of a hosted repository. Spec 2: session-branch history is not rewritten and the default
 * branch is never force-pushed, so non-fast-forward updates are refused on every branch; deletions are
 * allowed (branches are not deleted when a CR merges, so people clean up by hand) except for HEAD's branch.
 */
const HOSTED_REPOSITORY_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['receive.denyNonFastForwards', 'true'],
  ['receive.denyDeletes', 'false'],
  // Malformed objects never enter a repository (svc also sets this on every push it hands to git).
  ['receive.fsckObjects', 'true'],
  // A reflog on every branch: an audit trail of merges and pushes, and a way back from a bad one.
  ['core.logAllRefUpdates', 'true'],
  ['uploadpack.allowFilter', 'true'],
];

/** Create a bare repository at `repoPath` configured as an svc-hosted repository. Idempotent. */
export async function initBare(repoPath: string, options: InitBareOptions): Promise<void> {
  const target = path.resolve(repoPath);
  assertBranchName(options.defaultBranch);
  await runGit(['init', '--bare', '--quiet', `--initial-branch=${options.defaultBranch}`, '--', target]);
  await applyHostedRepositoryPolicy(target);
}

/** (Re)apply the receive rules and hook of a hosted repository, e.g. to repositories created by an older svc. */
export async function applyHostedRepositoryPolicy(repoPath: string): Promise<void> {
  const gitDir = path.resolve(repoPath);
  for (const [key, value] of HOSTED_REPOSITORY_CONFIG) {
    await runGit(['config', key, value], { gitDir });
  }
  const hooks = path.join(gitDir, 'hooks');
  await fs.mkdir(hooks, { recursive: true });
  await fs.writeFile(path.join(hooks, 'pre-receive'), PRE_RECEIVE_HOOK, { mode: 0o755 });
  await fs.chmod(path.join(hooks, 'pre-receive'), 0o755);
}

/** Point HEAD (the default branch clones check out) at `branch`. The branch need not exist yet. */
export async function setDefaultBranch(repoPath: string, branch: string): Promise<void> {
  await runGit(['symbolic-ref', 'HEAD', branchRef(branch)], { gitDir: repoPath });
}

/** The tip of `branch`, or null when the branch does not exist. */
export async function resolveRef(repoPath: string, branch: string): Promise<string | null> {
  const result = await runGit(['rev-parse', '--verify', '--quiet', branchRef(branch)], {
    gitDir: repoPath,
    okExitCodes: [1],
  });
  return result.exitCode === 0 ? firstLine(result) : null;
}

/**
 * Every branch and its tip, from one `for-each-ref`: how a listing of hundreds of CRs is refreshed
 * with one process per repository.
 */
export async function listBranchTips(repoPath: string): Promise<Map<string, string>> {
  const result = await runGit(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'], {
    gitDir: repoPath,
  });
  const tips = new Map<string, string>();
  // Ref names cannot contain a newline or control character, so lines are an unambiguous framing.
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const space = line.indexOf(' ');
    if (space === -1) continue;
    tips.set(line.slice(space + 1 + 'refs/heads/'.length), line.slice(0, space));
  }
  return tips;
}

/**
 * Turn a failed git run over `revisions` into RefNotFoundError when one of them does not name an object.
 * Decided by asking git (`cat-file --batch-check`), not by reading its English error text; runs only
 * on the failure path, so successful operations pay nothing for it.
 */
export async function explainMissingRevisions(
  repoPath: string,
  revisions: readonly string[],
  failure: unknown,
): Promise<never> {
  if (!(failure instanceof GitError)) throw failure;
  let check;
  try {
    check = await runGit(['cat-file', '--batch-check'], {
      gitDir: repoPath,
      stdin: revisions.map((revision) => `${revision}\n`).join(''),
    });
  } catch {
    throw failure;
  }
  const missing = check.stdout
    .toString('utf8')
    .split('\n')
    .filter((line) => line.endsWith(' missing') || line.endsWith(' ambiguous'))
    .map((line) => line.slice(0, line.lastIndexOf(' ')));
  if (missing.length > 0) throw new RefNotFoundError(missing, failure);
  throw failure;
}

/** The best common ancestor of two commits, or null when their histories are unrelated. */
export async function mergeBase(repoPath: string, a: string, b: string): Promise<string | null> {
  const revisions = [assertRevision(a), assertRevision(b)];
  try {
    const result = await runGit(['merge-base', ...revisions], { gitDir: repoPath, okExitCodes: [1] });
    // Exit 1 with no output is git's answer for "no common ancestor".
    return result.exitCode === 0 ? firstLine(result) : null;
  } catch (error) {
    return explainMissingRevisions(repoPath, revisions, error);
  }
}

/** Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor). */
export async function isAncestor(repoPath: string, ancestor: string, descendant: string): Promise<boolean> {
  const revisions = [assertRevision(ancestor), assertRevision(descendant)];
  try {
    const result = await runGit(['merge-base', '--is-ancestor', ...revisions], { gitDir: repoPath, okExitCodes: [1] });
    return result.exitCode === 0;
  } catch (error) {
    return explainMissingRevisions(repoPath, revisions, error);
  }
}

/** How many commits `head` has that `base` does not (CR_HEAD_NOT_AHEAD when 0). */
export async function countAhead(repoPath: string, base: string, head: string): Promise<number> {
  const baseRevision = assertRevision(base);
  const headRevision = assertRevision(head);
  try {
    const result = await runGit(['rev-list', '--count', `^${baseRevision}`, headRevision], { gitDir: repoPath });
    return Number.parseInt(firstLine(result), 10);
  } catch (error) {
    return explainMissingRevisions(repoPath, [baseRevision, headRevision], error);
  }
}

/** The content of `filePath` at `revision` as UTF-8 text, or null when no such file exists there. */
export async function readFileAtRef(repoPath: string, revision: string, filePath: string): Promise<string | null> {
  const files = await readFilesAtRef(repoPath, revision, [filePath]);
  return files.get(filePath)?.toString('utf8') ?? null;
}

/**
 * Several files at one revision with one `cat-file --batch` (the manifest gate asks for svc.yaml and
 * svc.toml together). Missing paths, and paths that are directories, are absent from the map.
 * Throws RefNotFoundError when `revision` itself does not exist, so "no such commit" is never read as
 * "no such file".
 */
export async function readFilesAtRef(
  repoPath: string,
  revision: string,
  filePaths: readonly string[],
): Promise<Map<string, Buffer>> {
  assertRevision(revision);
  filePaths.forEach(assertTreePath);
  // Requests go through stdin, not argv; the first line checks that the revision exists at all.
  const requests = [revision, ...filePaths.map((filePath) => `${revision}:${filePath}`)];
  const result = await runGit(['cat-file', '--batch'], {
    gitDir: repoPath,
    stdin: requests.map((request) => `${request}\n`).join(''),
  });
  const objects = parseCatFileBatch(result.stdout);
  if (objects.length !== requests.length) {
    throw new GitError('unexpected output from git cat-file --batch', {
      args: ['cat-file', '--batch'],
      exitCode: result.exitCode,
      signal: null,
      stderr: result.stderr,
    });
  }
  if (objects[0] === null) {
    throw new RefNotFoundError([revision], { args: ['cat-file', '--batch'], exitCode: 0, signal: null, stderr: '' });
  }
  const files = new Map<string, Buffer>();
  filePaths.forEach((filePath, index) => {
    const object = objects[index + 1];
    if (object && object.type === 'blob') files.set(filePath, object.content);
  });
  return files;
}

interface BatchObject {
  type: string;
  content: Buffer;
}

const FOUND_OBJECT_HEADER = /^[0-9a-f]{40,64} ([a-z]+) (\d+)$/;

/** `<oid> <type> <size>\n<content>\n` per found object, `<request> missing\n` (or ambiguous) otherwise. */
function parseCatFileBatch(output: Buffer): Array<BatchObject | null> {
  const objects: Array<BatchObject | null> = [];
  let position = 0;
  while (position < output.length) {
    const headerEnd = output.indexOf(0x0a, position);
    if (headerEnd === -1) break;
    const header = output.subarray(position, headerEnd).toString('utf8');
    position = headerEnd + 1;
    const found = FOUND_OBJECT_HEADER.exec(header);
    if (!found) {
      objects.push(null);
      continue;
    }
    const size = Number(found[2]);
    objects.push({ type: found[1] ?? '', content: output.subarray(position, position + size) });
    position += size + 1;
  }
  return objects;
}
