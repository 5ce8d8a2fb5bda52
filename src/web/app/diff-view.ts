/**
 * The diff of a change request as HTML: a file tree, then one section per file (linkable by its anchor)
 * with the hunks in a unified or a side-by-side table, syntax-coloured by highlight.js within a time
 * budget. Large files and generated files start collapsed; files whose patch svc left out say why.
 */
import { createHash } from 'node:crypto';
import { escapeAttr, escapeHtml } from '../../dashboards/render/escape.js';
import { HighlightBudget, highlightToHtml, splitHighlightedLines } from '../../dashboards/render/code-highlight.js';
import type { ChangeRequestDiff, ChangeRequestDiffFile } from '../../changes/diff-change-request.js';

export type DiffLayout = 'unified' | 'split';

/** Files changing more lines than this start collapsed: the reader opens them on purpose. */
export const COLLAPSE_FROM_LINES = 400;
/** Time one page may spend colouring code; the rest is shown plain (the first byte stays quick). */
const HIGHLIGHT_BUDGET_MS = 80;

const GENERATED = [/(^|\/)package-lock\.json$/, /(^|\/)yarn\.lock$/, /(^|\/)pnpm-lock\.yaml$/, /(^|\/)Cargo\.lock$/, /(^|\/)go\.sum$/, /(^|\/)poetry\.lock$/, /\.min\.(js|css)$/, /\.map$/, /(^|\/)(dist|vendor|node_modules)\//, /\.snap$/];

export function isGenerated(path: string): boolean {
  return GENERATED.some((pattern) => pattern.test(path));
}

/** The anchor of a file's section: stable for its path, so a link to it survives new commits. */
export function fileAnchor(path: string): string {
  return `diff-${createHash('sha256').update(path).digest('hex').slice(0, 12)}`;
}

interface Line {
  kind: ' ' | '+' | '-' | '\\';
  text: string;
  oldNumber: number | null;
  newNumber: number | null;
  html?: string;
}

interface Hunk {
  header: string;
  lines: Line[];
}

interface FilePatch {
  binary: boolean;
  hunks: Hunk[];
}

/** Splits git's unified patch into one piece per `diff --git` header, in the order git wrote them. */
function splitPatch(patch: string): string[] {
  const pieces: string[] = [];
  let start = patch.indexOf('diff --git ');
  while (start !== -1) {
    const next = patch.indexOf('\ndiff --git ', start + 1);
    pieces.push(patch.slice(start, next === -1 ? patch.length : next + 1));
    start = next === -1 ? -1 : next + 1;
  }
  return pieces;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

function parseFilePatch(piece: string): FilePatch {
  const hunks: Hunk[] = [];
  let binary = false;
  let current: Hunk | null = null;
  let oldNumber = 0;
  let newNumber = 0;
  const lines = piece.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    const header = HUNK_HEADER.exec(line);
    if (header) {
      current = { header: line, lines: [] };
      hunks.push(current);
      oldNumber = Number(header[1]);
      newNumber = Number(header[2]);
      continue;
    }
    if (!current) {
      if (line.startsWith('Binary files ') || line === 'GIT binary patch') binary = true;
      continue;
    }
    const kind = line[0];
    if (kind === '+') current.lines.push({ kind: '+', text: line.slice(1), oldNumber: null, newNumber: newNumber++ });
    else if (kind === '-') current.lines.push({ kind: '-', text: line.slice(1), oldNumber: oldNumber++, newNumber: null });
    else if (kind === '\\') current.lines.push({ kind: '\\', text: line.slice(1).trim(), oldNumber: null, newNumber: null });
    else current.lines.push({ kind: ' ', text: line.slice(1), oldNumber: oldNumber++, newNumber: newNumber++ });
  }
  return { binary, hunks };
}

function languageOf(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return name === 'Dockerfile' ? 'dockerfile' : name === 'Makefile' ? 'makefile' : undefined;
  return name.slice(dot + 1).toLowerCase();
}

/** Colours a hunk's code as one piece (a string spanning lines stays a string), then splits it back into lines. */
function colourHunk(hunk: Hunk, language: string | undefined, budget: HighlightBudget): void {
  const code = hunk.lines.filter((line) => line.kind !== '\\');
  const { html } = highlightToHtml(code.map((line) => line.text).join('\n'), language, budget);
  const split = splitHighlightedLines(html);
  code.forEach((line, index) => {
    line.html = split[index] ?? escapeHtml(line.text);
  });
}

function numberCell(value: number | null): string {
  return value === null ? '<td class="dn"></td>' : `<td class="dn" data-n="${value}"></td>`;
}

const KIND_CLASS: Record<Line['kind'], string> = { ' ': 'dx', '+': 'da', '-': 'dd', '\\': 'dx dnote' };

function codeContent(line: Line): string {
  // The marker is text, so a screen reader says "plus" or "minus"; CSS keeps it out of a copied selection.
  return `<span class="dm">${line.kind === '\\' || line.kind === ' ' ? '' : line.kind}</span>${line.html ?? escapeHtml(line.text)}`;
}

function codeCell(line: Line): string {
  return `<td class="dc">${codeContent(line)}</td>`;
}

function unifiedRows(hunk: Hunk): string {
  return hunk.lines.map((line) => `<tr class="${KIND_CLASS[line.kind]}">${numberCell(line.oldNumber)}${numberCell(line.newNumber)}${codeCell(line)}</tr>`).join('');
}

/** Side by side: context on both sides, each run of removals paired line by line with the additions after it. */
function splitRows(hunk: Hunk): string {
  const rows: string[] = [];
  const lines = hunk.lines;
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as Line;
    if (line.kind === '-' || line.kind === '+') {
      const removed: Line[] = [];
      const added: Line[] = [];
      while (index < lines.length && (lines[index] as Line).kind === '-') removed.push(lines[index++] as Line);
      while (index < lines.length && (lines[index] as Line).kind === '+') added.push(lines[index++] as Line);
      for (let pair = 0; pair < Math.max(removed.length, added.length); pair += 1) {
        const left = removed[pair] ?? null;
        const right = added[pair] ?? null;
        rows.push(`<tr><td class="dn${left ? ' dd' : ''}"${left ? ` data-n="${left.oldNumber}"` : ''}></td><td class="side${left ? ' dd' : ' de'}">${left ? codeContent(left) : ''}</td><td class="dn${right ? ' da' : ''}"${right ? ` data-n="${right.newNumber}"` : ''}></td><td class="side${right ? ' da' : ' de'}">${right ? codeContent(right) : ''}</td></tr>`);
      }
      continue;
    }
    const cell = codeContent(line);
    rows.push(`<tr class="${KIND_CLASS[line.kind]}"><td class="dn" data-n="${line.oldNumber ?? ''}"></td><td class="side">${cell}</td><td class="dn" data-n="${line.newNumber ?? ''}"></td><td class="side">${cell}</td></tr>`);
    index += 1;
  }
  return rows.join('');
}

function renderHunks(patch: FilePatch, layout: DiffLayout): string {
  const columns = layout === 'split' ? 4 : 3;
  const body = patch.hunks
    .map((hunk) => `<tr class="dh"><td colspan="${columns}">${escapeHtml(hunk.header)}</td></tr>${layout === 'split' ? splitRows(hunk) : unifiedRows(hunk)}`)
    .join('');
  return `<div class="dt-scroll"><table class="dt dt-${layout}">${body}</table></div>`;
}

const STATUS_WORD: Record<string, string> = { added: 'Added', modified: 'Modified', deleted: 'Deleted', renamed: 'Renamed' };

function renderFile(file: ChangeRequestDiffFile, patch: FilePatch | null, layout: DiffLayout, budget: HighlightBudget): string {
  const anchor = fileAnchor(file.path);
  const changed = file.additions + file.deletions;
  const generated = isGenerated(file.path);
  const large = changed > COLLAPSE_FROM_LINES;
  const collapsed = generated || large || file.note !== undefined;
  const renamed = file.old_path && file.old_path !== file.path ? `<span class="muted">${escapeHtml(file.old_path)} → </span>` : '';
  const why = generated ? '<span class="tag">generated</span>' : large ? '<span class="tag">large</span>' : '';
  let content: string;
  if (file.note !== undefined) content = `<p class="df-note">${escapeHtml(file.note)}</p>`;
  else if (!patch || patch.binary) content = `<p class="df-note">${patch?.binary ? 'Binary file; its contents are not shown.' : 'No textual change (a mode change or an empty file).'}</p>`;
  else if (patch.hunks.length === 0) content = '<p class="df-note">No textual change (a mode change or an empty file).</p>';
  else {
    if (!collapsed) {
      const language = languageOf(file.path);
      for (const hunk of patch.hunks) colourHunk(hunk, language, budget);
    }
    content = renderHunks(patch, layout);
  }
  return (
    `<section class="df" id="${anchor}"><a class="df-link" href="#${anchor}" aria-label="Link to ${escapeAttr(file.path)}">#</a><details${collapsed ? '' : ' open'}><summary class="df-head">` +
    `<span class="df-status st-${escapeAttr(file.status)}">${escapeHtml(STATUS_WORD[file.status] ?? file.status)}</span>` +
    `<span class="df-path">${renamed}${escapeHtml(file.path)}</span>${why}` +
    `<span class="df-counts"><span class="plus">+${file.additions}</span> <span class="minus">−${file.deletions}</span></span></summary>${content}</details></section>`
  );
}

interface TreeNode {
  dirs: Map<string, TreeNode>;
  files: ChangeRequestDiffFile[];
}

function renderTree(files: readonly ChangeRequestDiffFile[]): string {
  const root: TreeNode = { dirs: new Map(), files: [] };
  for (const file of files) {
    const parts = file.path.split('/');
    parts.pop();
    let node = root;
    for (const part of parts) {
      let child = node.dirs.get(part);
      if (!child) {
        child = { dirs: new Map(), files: [] };
        node.dirs.set(part, child);
      }
      node = child;
    }
    node.files.push(file);
  }
  const renderNode = (node: TreeNode): string => {
    const dirs = [...node.dirs.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, child]) => `<li class="tree-dir"><span class="tree-name">${escapeHtml(name)}/</span><ul>${renderNode(child)}</ul></li>`)
      .join('');
    const leaves = node.files
      .map((file) => {
        const name = file.path.slice(file.path.lastIndexOf('/') + 1);
        return `<li><a href="#${fileAnchor(file.path)}" class="tree-file st-${escapeAttr(file.status)}" title="${escapeAttr(file.path)}">${escapeHtml(name)}</a> <span class="tree-counts"><span class="plus">+${file.additions}</span> <span class="minus">−${file.deletions}</span></span></li>`;
      })
      .join('');
    return dirs + leaves;
  };
  return `<nav class="tree" aria-label="Changed files"><ul>${renderNode(root)}</ul></nav>`;
}

export interface RenderedDiff {
  tree: string;
  files: string;
}

export function renderDiff(diff: ChangeRequestDiff, layout: DiffLayout): RenderedDiff {
  const pieces = splitPatch(diff.patch);
  const budget = new HighlightBudget(HIGHLIGHT_BUDGET_MS);
  let next = 0;
  const files = diff.files
    .map((file) => {
      // Files svc left out of the patch have a note; the others appear in it in the list's order.
      const piece = file.note === undefined ? pieces[next++] : undefined;
      return renderFile(file, piece === undefined ? null : parseFilePatch(piece), layout, budget);
    })
    .join('');
  return { tree: renderTree(diff.files), files };
}
