/**
 * When a trigger fires next (contract §7): cron expressions through croner, read exactly as the merge gate
 * validated them, with spec 3's DST rules on top of croner's: a local time the clock skips is skipped (croner
 * would run a fixed-time job right after the gap), and a local time the clock repeats fires once (croner
 * would run an interval job on both occurrences). `run_at` fires once at or after its instant.
 */
import type { Cron } from 'croner';
import { cronSchedule } from '../manifest/index.js';
import type { NormalizedTrigger } from '../manifest/index.js';

const schedules = new Map<string, Cron>();
const MAX_CACHED_SCHEDULES = 10_000;

function scheduleOf(expression: string, timezone: string): Cron {
  const key = `${timezone}\u0000${expression}`;
  let schedule = schedules.get(key);
  if (!schedule) {
    if (schedules.size >= MAX_CACHED_SCHEDULES) schedules.clear();
    schedule = cronSchedule(expression, timezone);
    schedules.set(key, schedule);
  }
  return schedule;
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** The local date and time in a zone, to the second: two instants with the same text are one local time. */
function wallClock(instant: Date, timezone: string): string {
  let format = wallClocks.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallClocks.set(timezone, format);
  }
  return format.format(instant);
}

/** Clock changes move by an hour, or half an hour (Lord Howe Island). */
const CLOCK_SHIFTS_MS = [3_600_000, 1_800_000];

/** Zones of a fixed offset (UTC, the default, and Etc/GMT±N): no local time repeats, and checking costs three date formats. */
const FIXED_OFFSET_ZONE = /^(UTC|GMT|Etc\/.+)$/;

/** The second occurrence of a local time that a fall-back repeats. */
function repeatsAnEarlierLocalTime(instant: Date, timezone: string): boolean {
  if (FIXED_OFFSET_ZONE.test(timezone)) return false;
  const local = wallClock(instant, timezone);
  return CLOCK_SHIFTS_MS.some((shift) => wallClock(new Date(instant.getTime() - shift), timezone) === local);
}

/**
 * Answers already worked out, by expression, zone and instant. A scheduler pass plans every trigger it
 * claimed from the same instant, and triggers share expressions (every hour, every night): croner's walk was
 * over half of a replica's CPU when 10,000 triggers with one expression fired together.
 */
const recentAnswers = new Map<string, number | null>();
const MAX_RECENT_ANSWERS = 1_000;

/** The first instant strictly after `after` whose local time matches the expression, once per local time. */
export function nextCronFire(expression: string, timezone: string, after: Date): Date | null {
  const key = `${timezone}\u0000${expression}\u0000${after.getTime()}`;
  const known = recentAnswers.get(key);
  if (known !== undefined) return known === null ? null : new Date(known);
  const answer = walkToNextFire(expression, timezone, after);
  if (recentAnswers.size >= MAX_RECENT_ANSWERS) recentAnswers.clear();
  recentAnswers.set(key, answer?.getTime() ?? null);
  return answer;
}

function walkToNextFire(expression: string, timezone: string, after: Date): Date | null {
  const schedule = scheduleOf(expression, timezone);
  let candidate = schedule.nextRun(after);
  // A bounded walk: a gap or a repeated hour holds at most a few thousand matching seconds.
  for (let step = 0; candidate && step < 10_000; step++) {
    if (schedule.match(candidate) && !repeatsAnEarlierLocalTime(candidate, timezone)) return candidate;
    candidate = schedule.nextRun(candidate);
  }
  return candidate;
}

/**
 * The next fire of a trigger as stored: null for webhooks, disabled entries and a `run_at` already fired.
 * `lastFiredAt` tells a one-off that fired from one that has not (a run_at moved later fires again).
 */
export function nextFireAt(trigger: NormalizedTrigger, after: Date, lastFiredAt: string | null): string | null {
  if (!trigger.enabled || trigger.type !== 'cron') return null;
  if (trigger.run_at !== null) {
    if (lastFiredAt !== null && Date.parse(lastFiredAt) >= Date.parse(trigger.run_at)) return null;
    return trigger.run_at;
  }
  if (trigger.cron === null) return null;
  return nextCronFire(trigger.cron, trigger.timezone, after)?.toISOString() ?? null;
}
