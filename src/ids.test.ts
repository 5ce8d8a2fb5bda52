import { describe, expect, it } from 'vitest';
import { isUuid, newId } from './ids.js';
import { newTimeOrderedId } from './time-ordered-id.js';

describe('ids', () => {
  it('makes time-ordered ids that are UUIDs and sort as they were made, even within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newTimeOrderedId());
    expect(ids.every(isUuid)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('makes random ids that are UUIDs', () => {
    const ids = Array.from({ length: 100 }, () => newId());
    expect(ids.every(isUuid)).toBe(true);
    expect([...ids].sort()).not.toEqual(ids);
  });
});
