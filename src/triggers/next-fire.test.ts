import { describe, expect, it } from 'vitest';
import { nextCronFire, nextFireAt } from './next-fire.js';
import type { NormalizedTrigger } from '../manifest/index.js';

function fires(expression: string, timezone: string, from: string, count: number): string[] {
  const out: string[] = [];
  let after = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = nextCronFire(expression, timezone, after);
    if (!next) break;
    out.push(next.toISOString());
    after = next;
  }
  return out;
}

describe('next fires (contract §7)', () => {
  it('reads six fields with seconds', () => {
    expect(fires('*/5 * * * * *', 'UTC', '2026-01-01T00:00:05.000Z', 3)).toEqual(['2026-01-01T00:00:10.000Z', '2026-01-01T00:00:15.000Z', '2026-01-01T00:00:20.000Z']);
  });

  it('reads the expression in its IANA zone', () => {
    expect(fires('0 0 9 * * *', 'Europe/Paris', '2026-01-10T00:00:00Z', 1)).toEqual(['2026-01-10T08:00:00.000Z']);
    expect(fires('0 0 9 * * *', 'Europe/Paris', '2026-07-10T00:00:00Z', 1)).toEqual(['2026-07-10T07:00:00.000Z']);
  });

  it('skips a local time the spring-forward gap removes (New York, 8 March 2026)', () => {
    // 02:30 does not exist on 8 March: the fire on that day is skipped, not moved to 03:00.
    expect(fires('0 30 2 * * *', 'America/New_York', '2026-03-07T12:00:00Z', 2)).toEqual(['2026-03-09T06:30:00.000Z', '2026-03-10T06:30:00.000Z']);
    // Every 30 minutes across the gap: 01:30 EST then 03:00 EDT, nothing in between.
    expect(fires('0 */30 * * * *', 'America/New_York', '2026-03-08T06:15:00Z', 3)).toEqual(['2026-03-08T06:30:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-08T07:30:00.000Z']);
  });

  it('fires a repeated local time once (New York, 1 November 2026)', () => {
    expect(fires('0 30 1 * * *', 'America/New_York', '2026-10-31T12:00:00Z', 2)).toEqual(['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z']);
    // 01:00 and 01:30 happen twice that night; each fires on its first occurrence only.
    expect(fires('0 */30 * * * *', 'America/New_York', '2026-11-01T04:45:00Z', 4)).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T07:30:00.000Z',
    ]);
  });

  it('plans run_at once, nothing for webhooks and disabled entries', () => {
    const base = { slug: 's', name: 's', prompt: 'p', agent: 'default', model: null, session_mode: 'fresh', session_id: null } as const;
    const oneOff = { ...base, type: 'cron', enabled: true, cron: null, run_at: '2026-01-01T00:00:00.000Z', timezone: 'UTC' } satisfies NormalizedTrigger;
    const now = new Date('2026-06-01T00:00:00Z');
    expect(nextFireAt(oneOff, now, null)).toBe('2026-01-01T00:00:00.000Z');
    expect(nextFireAt(oneOff, now, '2026-06-01T00:00:00.000Z')).toBeNull();
    expect(nextFireAt({ ...oneOff, enabled: false }, now, null)).toBeNull();
    expect(nextFireAt({ ...base, type: 'webhook', enabled: true, secret_env: 'S' }, now, null)).toBeNull();
  });
});
