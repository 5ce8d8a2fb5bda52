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
import { DEFAULT_MAX_OUTPUT_BYTES, runGit } from './run-git.js';

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

export interface DiffBetweenOptions {
  fromSha: string;
  toSha: string;
  /** Cap on git's output (patch included); over it the diff fails with GitOutputTooLargeError. */
  maxOutputBytes?: number;
  timeoutMs?: number;
}

/** Two-dot diff: every difference between the trees of `fromSha` and `toSha`. */
export async function diffBetween(repoPath: string, options: DiffBetweenOptions): Promise<DiffResult> {
  const revisions = [assertRevision(options.fromSha), assertRevision(options.toSha)];
  let result;
  try {
    result = await runGit(
      ['diff-tree', '-r', '--raw', '--numstat', '--patch', '-z', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', ...revisions],
      {
        gitDir: repoPath,
        // Unicode paths appear as themselves in the patch headers instead of octal escapes.
        config: { 'core.quotePath': 'false' },
        maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        timeoutMs: options.timeoutMs,
      },
    );
  } catch (error) {
    return explainMissingRevisions(repoPath, revisions, error);
  }
  return parseDiffTreeOutput(result.stdout);
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
export async function diffThreeDot(
  repoPath: string,
  options: DiffThreeDotOptions,
): Promise<DiffResult & { mergeBase: string | null }> {
  const common =
    options.mergeBase !== undefined ? options.mergeBase : await findMergeBase(repoPath, options.baseSha, options.headSha);
  const diff = await diffBetween(repoPath, {
    fromSha: common ?? emptyTreeId(options.headSha.length),
    toSha: options.headSha,
    maxOutputBytes: options.maxOutputBytes,
    timeoutMs: options.timeoutMs,
  });
  return { ...diff, mergeBase: common };
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
  let position = 0;
  const readField = (): string => {
    const end = output.indexOf(0, position);
    if (end === -1) throw malformed('unterminated field');
    const field = output.subarray(position, end).toString('utf8');
    position = end + 1;
    return field;
  };

  const entries: Array<{ status: DiffFileStatus; path: string }> = [];
  while (position < output.length && output[position] === 0x3a /* ':' */) {
    const header = readField();
    const letter = header.slice(header.lastIndexOf(' ') + 1).charAt(0);
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

  if (position < output.length && output[position] === 0) position += 1;
  const patch = output.subarray(position).toString('utf8');
  return { files, additions, deletions, patch };
}
