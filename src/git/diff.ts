/**
 * CR diffs (spec 2, "Diff semantics"; contract §5 for the shape). One `git diff-tree` process yields the
 * file list (raw, for the status), the counts (numstat) and the unified patch together.
 *
 * Renames: diffs run with --no-renames, so a renamed file appears as `deleted` (old path) plus `added`
 * (new path), and old_path always equals path. Spec 2 knows only added/modified/deleted, and this keeps
 * every line count honest (a rename-with-edits is not squeezed into one entry whose counts hide the move).
 * It is also what `git diff` plumbing does by default. A type change (file ↔ symlink) is `modified`.
 */
import { createHash } from 'node:crypto';
import { assertRevision } from './arguments.js';
import { GitError } from './errors.js';
import { explainMissingRevisions, mergeBase as findMergeBase } from './repository.js';
import { collectLimitedPatch, patchOfShownFiles, type OmittedFile, type PatchLimits } from './limited-patch.js';
import { DEFAULT_MAX_OUTPUT_BYTES, runGit, startGit } from './run-git.js';

export type DiffFileStatus = 'added' | 'modified' | 'deleted';

/** Exactly the keys contract §5 sends for a file, so a presenter can pass it through unchanged. */
export interface DiffFile {
  path: string;
  old_path: string;
  status: DiffFileStatus;
  /** Lines added; 0 for binary files. */
  additions: number;
  /** Lines deleted; 0 for binary files. */
  deletions: number;
}

export interface DiffResult {
  files: DiffFile[];
  additions: number;
  deletions: number;
  /** The unified diff text; binary files appear as "Binary files … differ". */
  patch: string;
}

/** A diff whose patch was kept within limits: the file list and counts are complete, the patch may not be. */
export interface LimitedDiffResult extends DiffResult {
  /** Files whose patch is left out, in file-list order (empty when the whole patch is there). */
  omitted: OmittedFile[];
}

export interface DiffBetweenOptions {
  fromSha: string;
  toSha: string;
  /** Cap on git's output (patch included); over it the diff fails with GitOutputTooLargeError. */
  maxOutputBytes?: number;
  timeoutMs?: number;
}

const DIFF_TREE_ARGS = ['diff-tree', '-r', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv'];
// Unicode paths appear as themselves in the patch headers instead of octal escapes.
const DIFF_CONFIG = { 'core.quotePath': 'false' };

/** Two-dot diff: every difference between the trees of `fromSha` and `toSha`. */
export async function diffBetween(repoPath: string, options: DiffBetweenOptions): Promise<DiffResult> {
  const revisions = [assertRevision(options.fromSha), assertRevision(options.toSha)];
  let result;
  try {
    result = await runGit([...DIFF_TREE_ARGS, '--raw', '--numstat', '--patch', '-z', ...revisions], {
      gitDir: repoPath,
      config: DIFF_CONFIG,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      timeoutMs: options.timeoutMs,
    });
  } catch (error) {
    return explainMissingRevisions(repoPath, revisions, error);
  }
  return parseDiffTreeOutput(result.stdout);
}

/**
 * Two-dot diff whose patch is kept within `limits` (see limited-patch.ts): one git process lists the files
 * and counts (raw and numstat, small), a second streams the patch, which is read under the limits. The
 * file list still has to fit in `maxOutputBytes` (GitOutputTooLargeError otherwise).
 */
export async function diffBetweenWithinLimits(repoPath: string, options: DiffBetweenOptions & { limits: PatchLimits }): Promise<LimitedDiffResult> {
  const revisions = [assertRevision(options.fromSha), assertRevision(options.toSha)];
  const patchProcess = startGit([...DIFF_TREE_ARGS, '--patch', ...revisions], { gitDir: repoPath, config: DIFF_CONFIG, timeoutMs: options.timeoutMs, stdinMode: 'ignore' });
  const collecting = collectLimitedPatch(patchProcess, options.limits);
  // Its failure is reported through the listing's (the same revisions), or awaited below.
  collecting.catch(() => undefined);
  let listing;
  try {
    listing = await runGit([...DIFF_TREE_ARGS, '--raw', '--numstat', '-z', ...revisions], {
      gitDir: repoPath,
      config: DIFF_CONFIG,
      maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      timeoutMs: options.timeoutMs,
    });
  } catch (error) {
    patchProcess.kill();
    return explainMissingRevisions(repoPath, revisions, error);
  }
  const { files, additions, deletions, typeChanges } = parseListing(listing.stdout);
  // git writes a type change (file <-> symlink) as two sections: the deletion, then the creation.
  const sectionsPerFile = files.map((_, index) => (typeChanges.has(index) ? 2 : 1));
  const { patch, omitted } = patchOfShownFiles(await collecting, sectionsPerFile);
  return { files, additions, deletions, patch, omitted };
}

export interface DiffThreeDotOptions {
  baseSha: string;
  headSha: string;
  /** The merge base if already known (e.g. from previewMerge), null for unrelated histories; saves a process. */
  mergeBase?: string | null;
  maxOutputBytes?: number;
  timeoutMs?: number;
}

/**
 * Three-dot diff (`base...head`): what head changed since it left base, so commits that landed on base
 * meanwhile are excluded. For unrelated histories there is no fork point; the diff is then taken from the
 * empty tree, showing head's whole content as added (what the CR would bring), and mergeBase is null.
 */
export async function diffThreeDot(repoPath: string, options: DiffThreeDotOptions): Promise<DiffResult & { mergeBase: string | null }> {
  const mergeBase = await forkPoint(repoPath, options);
  const diff = await diffBetween(repoPath, { ...options, fromSha: mergeBase ?? emptyTreeId(options.headSha.length), toSha: options.headSha });
  return { ...diff, mergeBase };
}

/** diffThreeDot with the patch kept within `limits` (see diffBetweenWithinLimits). */
export async function diffThreeDotWithinLimits(
  repoPath: string,
  options: DiffThreeDotOptions & { limits: PatchLimits },
): Promise<LimitedDiffResult & { mergeBase: string | null }> {
  const mergeBase = await forkPoint(repoPath, options);
  const diff = await diffBetweenWithinLimits(repoPath, { ...options, fromSha: mergeBase ?? emptyTreeId(options.headSha.length), toSha: options.headSha });
  return { ...diff, mergeBase };
}

function forkPoint(repoPath: string, options: DiffThreeDotOptions): Promise<string | null> {
  return options.mergeBase !== undefined ? Promise.resolve(options.mergeBase) : findMergeBase(repoPath, options.baseSha, options.headSha);
}

/** The id of the empty tree in a repository whose object ids are `idLength` hex digits (SHA-1 or SHA-256). */
export function emptyTreeId(idLength: number): string {
  return createHash(idLength === 64 ? 'sha256' : 'sha1')
    .update('tree 0\0')
    .digest('hex');
}

const STATUS_BY_LETTER: Record<string, DiffFileStatus> = { A: 'added', D: 'deleted', M: 'modified', T: 'modified' };

function malformed(what: string): GitError {
  return new GitError(`unexpected git diff-tree output: ${what}`, {
    args: ['diff-tree'],
    exitCode: 0,
    signal: null,
    stderr: '',
  });
}

/**
 * With -z, diff-tree writes every raw entry (`:<modes> <oids> <status>\0<path>\0`), then one numstat entry
 * per file in the same order (`<added>\t<deleted>\t<path>\0`, `-` for binary), then `\0` and the patch.
 */
export function parseDiffTreeOutput(output: Buffer): DiffResult {
  const { files, additions, deletions, end } = parseListing(output);
  let position = end;
  if (position < output.length && output[position] === 0) position += 1;
  const patch = output.subarray(position).toString('utf8');
  return { files, additions, deletions, patch };
}

/**
 * The raw and numstat entries of diff-tree -z output, and where they end. Type changes are the indexes
 * of files whose status letter is T.
 */
function parseListing(output: Buffer): Omit<DiffResult, 'patch'> & { typeChanges: Set<number>; end: number } {
  let position = 0;
  const readField = (): string => {
    const end = output.indexOf(0, position);
    if (end === -1) throw malformed('unterminated field');
    const field = output.subarray(position, end).toString('utf8');
    position = end + 1;
    return field;
  };

  const entries: Array<{ status: DiffFileStatus; path: string }> = [];
  const typeChanges = new Set<number>();
  while (position < output.length && output[position] === 0x3a /* ':' */) {
    const header = readField();
    const letter = header.slice(header.lastIndexOf(' ') + 1).charAt(0);
    if (letter === 'T') typeChanges.add(entries.length);
    entries.push({ status: STATUS_BY_LETTER[letter] ?? 'modified', path: readField() });
  }

  const files: DiffFile[] = [];
  let additions = 0;
  let deletions = 0;
  for (const entry of entries) {
    const numstat = readField();
    const firstTab = numstat.indexOf('\t');
    const secondTab = numstat.indexOf('\t', firstTab + 1);
    if (firstTab === -1 || secondTab === -1 || numstat.slice(secondTab + 1) !== entry.path) {
      throw malformed(`numstat entry ${JSON.stringify(numstat)} does not match ${JSON.stringify(entry.path)}`);
    }
    const added = Number.parseInt(numstat.slice(0, firstTab), 10);
    const deleted = Number.parseInt(numstat.slice(firstTab + 1, secondTab), 10);
    const file: DiffFile = {
      path: entry.path,
      old_path: entry.path,
      status: entry.status,
      additions: Number.isNaN(added) ? 0 : added,
      deletions: Number.isNaN(deleted) ? 0 : deleted,
    };
    additions += file.additions;
    deletions += file.deletions;
    files.push(file);
  }
  return { files, additions, deletions, typeChanges, end: position };
}
