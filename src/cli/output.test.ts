import { describe, expect, it } from 'vitest';
import { timeCell } from './output.js';

const now = new Date('2026-12-08T00:00:00Z');
const terminal = { isTTY: true, now: () => now };

describe('timeCell', () => {
  it('says how long ago a past time was, and how soon a time to come is, on a terminal', () => {
    expect(timeCell(terminal, '2026-12-07T23:59:30Z')).toBe('just now');
    expect(timeCell(terminal, '2026-12-07T23:57:00Z')).toBe('3 minutes ago');
    expect(timeCell(terminal, '2026-12-06T00:00:00Z')).toBe('2 days ago');
    expect(timeCell(terminal, '2026-12-08T00:00:20Z')).toBe('in a moment');
    // A trigger's next fire 82 minutes ahead (it read "just now").
    expect(timeCell(terminal, '2026-12-08T01:22:00Z')).toBe('in 1 hour');
    expect(timeCell(terminal, '2026-12-08T00:01:00Z')).toBe('in 1 minute');
    expect(timeCell(terminal, '2027-02-08T00:00:00Z')).toBe('in 2 months');
  });

  it('gives the timestamp itself when piped, and nothing for no time', () => {
    expect(timeCell({ isTTY: false, now: () => now }, '2026-12-08T01:22:00Z')).toBe('2026-12-08T01:22:00Z');
    expect(timeCell(terminal, null)).toBe('');
  });
});
