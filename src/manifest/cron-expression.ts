/**
 * Cron expressions as spec 3 defines them: six fields, second minute hour day month weekday, read by
 * croner. The scheduler must read an expression exactly as the merge gate validated it, so both take
 * their options from here.
 */
import { Cron, type CronOptions } from 'croner';

/** Exactly six fields; croner's defaults otherwise (day and weekday combine with OR, as in Vixie cron). */
export const CRON_PATTERN_OPTIONS = { mode: '6-part' } as const satisfies CronOptions;

/** A paused croner job for a validated expression: ask it `nextRun(after)`. Never starts a timer. */
export function cronSchedule(expression: string, timezone: string): Cron {
  return new Cron(expression, { ...CRON_PATTERN_OPTIONS, timezone, paused: true });
}

export type CronCheck = { ok: true; expression: string } | { ok: false; reason: string };

/** The 6-field forms of the nicknames other cron dialects accept, offered in the message. */
const NICKNAMES: Readonly<Record<string, string>> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

const FIELD_ORDER = 'second minute hour day month weekday';
const MAX_EXPRESSION_LENGTH = 512;

/**
 * Validates one expression and returns it with its fields separated by single spaces, so YAML and TOML
 * spellings of the same schedule normalize alike.
 */
export function checkCronExpression(raw: string, field = 'cron'): CronCheck {
  const expression = raw.trim().split(/\s+/).join(' ');
  const shown = JSON.stringify(expression.length > 80 ? `${expression.slice(0, 80)}…` : expression);
  if (expression === '') return { ok: false, reason: `${field} is empty; write six fields such as "0 0 9 * * 1-5"` };
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return { ok: false, reason: `${field} is ${expression.length} characters long; a cron expression is six short fields` };
  }
  const nickname = NICKNAMES[expression.toLowerCase()];
  if (nickname) {
    return { ok: false, reason: `${field} ${shown} is a nickname svc does not read; write the six fields "${nickname}"` };
  }
  const fields = expression.split(' ');
  if (fields.length === 5) {
    return {
      ok: false,
      reason: `${field} ${shown} has 5 fields, but svc reads 6 (${FIELD_ORDER}); to run at second 0 write "0 ${expression}"`,
    };
  }
  if (fields.length !== 6) {
    return { ok: false, reason: `${field} ${shown} has ${fields.length} fields; write exactly 6 (${FIELD_ORDER})` };
  }
  try {
    // The timezone is checked on its own; validity of the pattern does not depend on it.
    new Cron(expression, { ...CRON_PATTERN_OPTIONS, paused: true });
  } catch (error) {
    const detail = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    return { ok: false, reason: `${field} ${shown} is not a valid 6-field cron expression (${FIELD_ORDER}): ${detail}` };
  }
  if (neverMatchesADay(fields)) {
    return { ok: false, reason: `${field} ${shown} never fires: no month has the day it names` };
  }
  return { ok: true, expression };
}

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `0 0 0 30 2 *` parses but never runs. Asking croner for the next run would find that out, but only after
 * searching years ahead (milliseconds per expression, too slow for a hostile manifest with thousands), so
 * the impossible case is decided from the fields: numeric days and months, and no weekday that could
 * make the job fire on its own.
 */
function neverMatchesADay(fields: readonly string[]): boolean {
  const [, , , dayField, monthField, weekdayField] = fields;
  if (weekdayField !== '*' && weekdayField !== '?') return false;
  const days = numericValues(dayField ?? '');
  const months = numericValues(monthField ?? '');
  if (!days || !months) return false;
  const longestMonth = Math.max(...months.map((month) => DAYS_IN_MONTH[month - 1] ?? 31));
  return Math.min(...days) > longestMonth;
}

/** `5`, `1,15`, `1-3,20` → the numbers; null for anything else (`*`, steps, names, L, W). */
function numericValues(field: string): number[] | null {
  const values: number[] = [];
  for (const part of field.split(',')) {
    const range = /^(\d{1,2})(?:-(\d{1,2}))?$/.exec(part);
    if (!range) return null;
    const first = Number(range[1]);
    const last = range[2] === undefined ? first : Number(range[2]);
    for (let value = first; value <= last; value++) values.push(value);
  }
  return values.length > 0 ? values : null;
}
