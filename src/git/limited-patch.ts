/**
 * Reads a unified patch from git as it streams and keeps only what can be shown: a file whose part of the
 * patch is larger than the per-file limit is left out (its bytes are read and dropped, never held), and the
 * patch stops, at a file boundary, before it would grow past the total limit; git is stopped then. The
 * caller learns which files were left out and why, so it can say so (GitHub's "Large diffs are not rendered").
 */
import type { GitProcess } from './run-git.js';

export interface PatchLimits {
  /** A file whose patch section(s) would be larger than this is left out. */
  maxFileBytes: number;
  /** The patch kept stops before it would grow past this. */
  maxBytes: number;
}

export type OmittedReason = 'file-too-large' | 'diff-too-large';

export interface OmittedFile {
  /** Index of the file in the diff's file list. */
  index: number;
  reason: OmittedReason;
  /** For 'file-too-large': the size of the file's patch, in bytes. */
  bytes?: number;
}

/** Sections of the patch start at a line beginning with this (content lines always start with ' ', '+', '-' or '\'). */
const SECTION_MARKER = Buffer.from('\ndiff --git ');

interface Section {
  bytes: number;
  /** The section's bytes while it is within the per-file limit; null once it is over. */
  kept: Buffer[] | null;
}

/** What was read: the sections in git's order, each kept or left out, and where the total limit stopped it. */
export interface CollectedPatch {
  /** Per section in order: its size, and its text unless it is over the per-file limit. */
  sections: Array<{ bytes: number; text: Buffer | null }>;
  /** The index of the first section the total limit left out (it and all later ones); null when it was not reached. */
  stoppedAt: number | null;
}

/**
 * Collects `git.stdout` under `limits`. It must be called as soon as git starts: Node discards the output
 * of a process that exits while nobody reads it.
 */
export async function collectLimitedPatch(git: GitProcess, limits: PatchLimits): Promise<CollectedPatch> {
  let shownBytes = 0;
  const sections: CollectedPatch['sections'] = [];
  let stoppedAt: number | null = null;
  let current: Section | null = null;
  // A virtual newline before the first byte, so the first section's marker is found like the others.
  let carry = Buffer.from('\n');

  const append = (bytes: Buffer): void => {
    if (current === null || bytes.length === 0) return;
    current.bytes += bytes.length;
    if (current.kept === null) return;
    if (current.bytes > limits.maxFileBytes) current.kept = null;
    else current.kept.push(Buffer.from(bytes));
  };

  const finish = (): void => {
    if (current === null) return;
    const section = current;
    current = null;
    if (section.kept === null) {
      sections.push({ bytes: section.bytes, text: null });
      return;
    }
    if (shownBytes + section.bytes > limits.maxBytes) {
      // The total limit is reached: this section and every later one are left out, and git is stopped.
      stoppedAt = sections.length;
      git.kill();
      return;
    }
    shownBytes += section.bytes;
    sections.push({ bytes: section.bytes, text: Buffer.concat(section.kept) });
  };

  const take = (chunk: Buffer): void => {
    if (stoppedAt !== null) return;
    const data = Buffer.concat([carry, chunk]);
    let start = 0;
    for (;;) {
      const at = data.indexOf(SECTION_MARKER, start);
      if (at === -1) break;
      append(data.subarray(start, at + 1));
      finish();
      if (stoppedAt !== null) return;
      current = { bytes: 0, kept: [] };
      start = at + 1;
    }
    // The last bytes may be the beginning of a marker: they wait for the next chunk.
    const keepFrom = Math.max(start, data.length - (SECTION_MARKER.length - 1));
    append(data.subarray(start, keepFrom));
    carry = Buffer.from(data.subarray(keepFrom));
  };

  git.stdout.on('data', take);
  const ended = new Promise<void>((resolve) => git.stdout.once('end', resolve));
  try {
    await git.finished;
  } catch (error) {
    // git stopped by us once the limit was reached; anything else is a real failure.
    if (stoppedAt === null) throw error;
  }
  if (stoppedAt === null) {
    await ended;
    append(carry);
    finish();
  }
  return { sections, stoppedAt };
}

/**
 * The patch of the files shown, and which files are left out, given how many sections git writes per file,
 * in order (one, or two for a type change, shown as a deletion then a creation). A file is shown whole or
 * not at all: a type change is never cut between its deletion and its creation.
 */
export function patchOfShownFiles(collected: CollectedPatch, sectionsPerFile: readonly number[]): { patch: string; omitted: OmittedFile[] } {
  const shown: Buffer[] = [];
  const omitted: OmittedFile[] = [];
  let section = 0;
  sectionsPerFile.forEach((count, index) => {
    const own = Array.from({ length: count }, (_, one) => section + one);
    section += count;
    if (collected.stoppedAt !== null && own.some((one) => one >= (collected.stoppedAt ?? Infinity))) {
      omitted.push({ index, reason: 'diff-too-large' });
      return;
    }
    const read = own.map((one) => collected.sections[one]).filter((one) => one !== undefined);
    if (read.some((one) => one.text === null)) {
      omitted.push({ index, reason: 'file-too-large', bytes: read.reduce((sum, one) => sum + one.bytes, 0) });
      return;
    }
    for (const one of read) if (one.text) shown.push(one.text);
  });
  return { patch: Buffer.concat(shown).toString('utf8'), omitted };
}
