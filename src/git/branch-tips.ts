/**
 * The tips of a few named branches, for operations on one change request. listBranchTips lists every
 * branch with one for-each-ref (right for a listing of many CRs); one CR needs two, and on the request path
 * of a merge or a preview each git process is a noticeable share of the time. Kept apart from
 * repository.ts, which belongs to the git layer's owner; it uses the same door (runGit) and argument checks.
 *
 * Fast path: a branch svc or a push updated recently is a loose ref, a file holding the commit id, which
 * git itself reads and replaces atomically (write `<ref>.lock`, rename). Reading it is what `rev-parse`
 * would do, without starting a process. Anything else (a packed ref, a symbolic ref, another ref backend)
 * is left to git: one `rev-parse` for all of them, or the full listing when one does not exist.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { branchRef } from './arguments.js';
import { GitError } from './errors.js';
import { listBranchTips } from './repository.js';
import { runGit } from './run-git.js';

const OBJECT_ID_LINE = /^([0-9a-f]{40}|[0-9a-f]{64})\n?$/;

/** Branch name → tip for each of `branches` that exists; missing branches are absent from the map. */
export async function resolveBranchTips(repoPath: string, branches: readonly string[]): Promise<Map<string, string>> {
  const names = [...new Set(branches)];
  const refs = names.map(branchRef);
  const loose = await Promise.all(refs.map((ref) => readLooseRef(repoPath, ref)));
  if (loose.every((sha) => sha !== null)) return new Map(names.map((name, index) => [name, loose[index] ?? '']));
  try {
    // Full ref names only, so nothing is read as an option or a revision expression.
    const result = await runGit(['rev-parse', ...refs], { gitDir: repoPath });
    const shas = result.stdout.toString('utf8').trim().split('\n');
    if (shas.length === names.length) return new Map(names.map((name, index) => [name, shas[index] ?? '']));
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    // rev-parse fails as a whole when one branch is missing; the listing says which ones exist.
  }
  const tips = await listBranchTips(repoPath);
  return new Map(names.flatMap((name) => (tips.has(name) ? [[name, tips.get(name) ?? '']] : [])));
}

async function readLooseRef(repoPath: string, ref: string): Promise<string | null> {
  try {
    const text = await fs.readFile(path.join(repoPath, ref), 'utf8');
    return OBJECT_ID_LINE.exec(text)?.[1] ?? null;
  } catch {
    return null;
  }
}
