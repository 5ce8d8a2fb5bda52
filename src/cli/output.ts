import type { CliDeps } from './deps.js';

export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Right-align on a terminal (numbers). */
  numeric?: boolean;
}

/**
 * On a terminal: an aligned table with a header. Piped: tab-separated rows without a header, stable
 * for scripts (`cut -f1`). Tabs and newlines inside values are flattened to spaces.
 */
export function printTable<T>(deps: Pick<CliDeps, 'stdout' | 'isTTY'>, rows: T[], columns: Column<T>[]): void {
  const cells = rows.map((row) => columns.map((c) => c.value(row).replace(/[\t\r\n]+/g, ' ')));
  if (!deps.isTTY) {
    for (const line of cells) deps.stdout.write(`${line.join('\t')}\n`);
    return;
  }
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((line) => (line[i] ?? '').length)));
  const format = (line: string[]) =>
    line
      .map((cell, i) => (columns[i]?.numeric ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  deps.stdout.write(`${bold(deps, format(columns.map((c) => c.header.toUpperCase())))}\n`);
  for (const line of cells) deps.stdout.write(`${format(line)}\n`);
}

export function printJson(deps: Pick<CliDeps, 'stdout'>, value: unknown): void {
  deps.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function bold(deps: { isTTY: boolean; env?: NodeJS.ProcessEnv }, text: string): string {
  return useColour(deps) ? `\u001b[1m${text}\u001b[22m` : text;
}

export function colour(deps: { isTTY: boolean; env?: NodeJS.ProcessEnv }, code: 'red' | 'green' | 'yellow' | 'cyan' | 'dim', text: string): string {
  if (!useColour(deps)) return text;
  const codes = { red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39], dim: [2, 22] } as const;
  const [open, close] = codes[code];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
function useColour(deps: { isTTY: boolean; env?: NodeJS.ProcessEnv }): boolean {
  return deps.isTTY && !(deps.env ?? process.env).NO_COLOR;
}

/** "3 minutes ago", or "in 2 hours" for a time to come (a trigger's next fire), on a terminal; the ISO timestamp when piped. */
export function timeCell(deps: Pick<CliDeps, 'isTTY' | 'now'>, iso: string | null | undefined): string {
  if (!iso) return '';
  if (!deps.isTTY) return iso;
  const secondsAgo = Math.round((deps.now().getTime() - Date.parse(iso)) / 1000);
  const seconds = Math.abs(secondsAgo);
  if (seconds < 45) return secondsAgo >= 0 ? 'just now' : 'in a moment';
  const units: Array<[number, string]> = [
    [60, 'minute'],
    [3600, 'hour'],
    [86400, 'day'],
    [86400 * 30, 'month'],
    [86400 * 365, 'year'],
  ];
  let chosen: [number, string] = units[0] ?? [60, 'minute'];
  for (const unit of units) if (seconds >= unit[0]) chosen = unit;
  const count = Math.max(1, Math.round(seconds / chosen[0]));
  const span = `${count} ${chosen[1]}${count === 1 ? '' : 's'}`;
  return secondsAgo >= 0 ? `${span} ago` : `in ${span}`;
}
