/**
 * `run_at`: an ISO-8601 date and time that names one instant. A time without `Z` or an offset is
 * refused rather than read in `timezone`: around a DST change such a time happens twice or not at all,
 * and a one-off that silently fires an hour off is worse than a manifest that asks for the offset.
 */

export type RunAtCheck = { ok: true; instant: string } | { ok: false; reason: string };

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

const EXAMPLE = '2025-07-01T09:00:00Z or 2025-07-01T09:00:00+02:00';

/** Returns the instant in UTC as `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export function checkRunAt(raw: string, field = 'run_at'): RunAtCheck {
  const text = raw.trim();
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  const match = ISO_DATE_TIME.exec(text);
  if (!match) {
    const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
    return {
      ok: false,
      reason: dateOnly
        ? `${field} ${shown} has no time of day; write a date and time such as ${EXAMPLE}`
        : `${field} ${shown} is not an ISO-8601 date and time; write it like ${EXAMPLE}`,
    };
  }
  const [, year, month, day, hour, minute, second = '0', fraction = '', zulu, sign, offsetHours, offsetMinutes] = match;
  if (!zulu && !sign) {
    return {
      ok: false,
      reason: `${field} ${shown} has no UTC offset, so the instant is ambiguous; add Z for UTC or an offset, e.g. ${text}Z or ${text}+02:00`,
    };
  }
  const numbers = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  };
  if (numbers.month < 1 || numbers.month > 12 || numbers.day < 1 || numbers.day > daysInMonth(numbers.year, numbers.month)) {
    return { ok: false, reason: `${field} ${shown} names a day that does not exist` };
  }
  if (numbers.hour > 23 || numbers.minute > 59 || numbers.second > 59) {
    return { ok: false, reason: `${field} ${shown} names a time of day that does not exist (hours 00-23, minutes and seconds 00-59)` };
  }
  let offsetInMinutes = 0;
  if (sign) {
    const hours = Number(offsetHours);
    const minutes = Number(offsetMinutes);
    if (hours > 23 || minutes > 59) return { ok: false, reason: `${field} ${shown} has an impossible UTC offset` };
    offsetInMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  const wallClock = new Date(0);
  // setUTCFullYear, because Date.UTC reads years 0-99 as 1900-1999.
  wallClock.setUTCFullYear(numbers.year, numbers.month - 1, numbers.day);
  wallClock.setUTCHours(numbers.hour, numbers.minute, numbers.second, milliseconds);
  const instant = new Date(wallClock.getTime() - offsetInMinutes * 60_000);
  if (Number.isNaN(instant.getTime())) return { ok: false, reason: `${field} ${shown} is outside the dates svc can represent` };
  return { ok: true, instant: instant.toISOString() };
}

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}
