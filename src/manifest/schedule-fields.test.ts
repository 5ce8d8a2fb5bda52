import { describe, expect, test } from 'vitest';
import { checkCronExpression, checkRunAt, checkTimezone, cronSchedule } from './index.js';

describe('checkCronExpression', () => {
  test('normalizes whitespace between fields', () => {
    expect(checkCronExpression('  0\t0  3 * * *  ')).toEqual({ ok: true, expression: '0 0 3 * * *' });
  });

  test('refuses expressions croner would read with a different field count', () => {
    expect(checkCronExpression('0 3 * * *').ok).toBe(false);
    expect(checkCronExpression('0 0 3 * * * 2030').ok).toBe(false);
    expect(checkCronExpression('x'.repeat(10_000))).toMatchObject({ ok: false, reason: expect.stringContaining('characters long') });
  });

  test('never-firing days are found from the fields; possible ones pass', () => {
    expect(checkCronExpression('0 0 0 31 4,6,9,11 *').ok).toBe(false);
    expect(checkCronExpression('0 0 0 30-31 2 *').ok).toBe(false);
    expect(checkCronExpression('0 0 0 31 4,5 *').ok).toBe(true);
    // With a weekday, day and weekday combine with OR: the job still fires on Mondays.
    expect(checkCronExpression('0 0 0 30 2 1').ok).toBe(true);
  });

  test('cronSchedule reads a validated expression in its zone, seconds included', () => {
    const schedule = cronSchedule('30 0 9 * * *', 'Europe/Paris');
    expect(schedule.nextRun(new Date('2030-01-01T00:00:00Z'))?.toISOString()).toBe('2030-01-01T08:00:30.000Z');
    expect(schedule.isRunning()).toBe(false);
  });
});

describe('checkRunAt', () => {
  test.each([
    ['2030-01-01T00:00:00Z', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01t00:00:00z', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T00:00Z', '2030-01-01T00:00:00.000Z'],
    ['2030-01-01T00:00:00.123456789+00:00', '2030-01-01T00:00:00.123Z'],
    ['2030-01-01T01:00:00+01:00', '2030-01-01T00:00:00.000Z'],
    ['2029-12-31T23:30:00-00:30', '2030-01-01T00:00:00.000Z'],
    ['2028-02-29T12:00:00Z', '2028-02-29T12:00:00.000Z'],
    ['0099-06-01T00:00:00Z', '0099-06-01T00:00:00.000Z'],
  ])('%s is the instant %s', (text, instant) => {
    expect(checkRunAt(text)).toEqual({ ok: true, instant });
  });

  test.each(['2029-02-29T12:00:00Z', '2030-13-01T00:00:00Z', '2030-01-01T00:60:00Z', '2030-01-01T00:00:00+24:00', '1 Jan 2030', ''])(
    '%s is refused',
    (text) => {
      expect(checkRunAt(text).ok).toBe(false);
    },
  );
});

describe('checkTimezone', () => {
  test.each(['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])('%s is a zone', (zone) => {
    expect(checkTimezone(zone)).toEqual({ ok: true });
  });

  test.each(['Mars/Olympus', '+01:00', 'UTC+1', '', 'Europe/' + 'x'.repeat(100), '../etc/passwd'])('%s is not', (zone) => {
    expect(checkTimezone(zone).ok).toBe(false);
  });
});
