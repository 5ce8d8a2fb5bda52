/**
 * Small helpers that turn values into words for issue messages. Manifests come from branches anyone
 * with push access can write, so every echo of user input is bounded in length.
 */

const MAX_ECHO_LENGTH = 80;

/** A string as it would appear in the file, cut short when it is long. */
export function quote(text: string): string {
  const shown = text.length > MAX_ECHO_LENGTH ? `${text.slice(0, MAX_ECHO_LENGTH)}…` : text;
  return JSON.stringify(shown);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** What a value is, in the words a person reading YAML or TOML would use. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  if (typeof value === 'string') return `the text ${quote(value)}`;
  if (typeof value === 'number' || typeof value === 'bigint') return `the number ${String(value)}`;
  if (typeof value === 'boolean') return `the boolean ${String(value)}`;
  if (value instanceof Date) return 'a date';
  if (Array.isArray(value)) return 'a list';
  return 'a mapping';
}

/**
 * "must be text" with a hint for the frequent YAML slip: an unquoted `2024` or `on` read as a number
 * or a boolean where a string was meant.
 */
export function expectedText(field: string, value: unknown): string {
  const scalar = typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint';
  return `${field} must be text, got ${describeValue(value)}${scalar ? ` (put it in quotes: "${String(value)}")` : ''}`;
}

export function listWords(words: readonly string[]): string {
  return words.join(', ');
}

/** Edit distance, bounded by `limit` so a hostile key of megabytes costs nothing. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    if (rowMinimum > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}

/** `sessionmode`, `Session-Mode` and `session_mode` are the same intent. */
function looseForm(word: string): string {
  return word.toLowerCase().replace(/[-_\s]/g, '');
}

/** The known name a person most likely meant, or null when none is close. */
export function closestName(word: string, candidates: readonly string[]): string | null {
  if (word.length > 64) return null;
  const loose = looseForm(word);
  const sameShape = candidates.find((candidate) => looseForm(candidate) === loose);
  if (sameShape) return sameShape;
  let best: string | null = null;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(loose, looseForm(candidate), bestDistance - 1);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** " (did you mean cron?)" or nothing. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const guess = closestName(word, candidates);
  return guess ? ` (did you mean ${guess}?)` : '';
}
