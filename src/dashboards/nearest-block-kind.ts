import { BLOCK_KINDS } from './spec-schema.js';

/**
 * Names people reach for that are not block kinds, with the kind that does the job: a writer who knows
 * Markdown, or another dashboard tool, types these first.
 */
const KNOWN_ALIASES: Record<string, string> = {
  markdown: 'prose',
  md: 'prose',
  text: 'paragraph',
  richtext: 'prose',
  h1: 'title',
  h2: 'heading',
  header: 'heading',
  kpi: 'stat',
  metric: 'stat',
  number: 'bignumber',
  bar: 'chart',
  bars: 'chart',
  line: 'chart',
  pie: 'chart',
  graph: 'chart',
  plot: 'chart',
  image: 'figure',
  img: 'figure',
  picture: 'figure',
  grid: 'table',
  alert: 'callout',
  note: 'callout',
  warning: 'callout',
  blockquote: 'quote',
  snippet: 'code',
  todo: 'checklist',
  tasks: 'checklist',
  tags: 'pills',
  badges: 'pills',
  avatars: 'people',
  iframe: 'html',
  embed: 'html',
  progress: 'progressList',
  meter: 'gauge',
  keyvalue: 'fields',
};

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The block kind a mistyped or borrowed name most likely meant (`markdown` → `prose`, `tabel` → `table`),
 * or null when nothing is close enough to suggest with a straight face.
 */
export function nearestBlockKind(name: string): string | null {
  const lower = name.trim().toLowerCase();
  const exactCase = BLOCK_KINDS.find((kind) => kind.toLowerCase() === lower);
  if (exactCase) return exactCase;
  const alias = KNOWN_ALIASES[lower] ?? KNOWN_ALIASES[lower.replace(/s$/, '')];
  if (alias) return alias;
  let best: { kind: string; distance: number } | null = null;
  for (const kind of BLOCK_KINDS) {
    const distance = editDistance(lower, kind.toLowerCase());
    if (!best || distance < best.distance) best = { kind, distance };
  }
  // A third of the word may be wrong, at most two letters: "tabel", "chrat", "stats" for "stat".
  return best && best.distance <= Math.min(2, Math.ceil(lower.length / 3)) ? best.kind : null;
}
