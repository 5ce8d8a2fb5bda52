import { describe, expect, it } from 'vitest';
import { FairQueue } from './fair-queue.js';

function drained(queue: FairQueue<string>): string[] {
  return queue.drain();
}

describe('FairQueue', () => {
  it('keeps the order of one owner’s items', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3']) queue.push(['a'], item);
    expect(queue.size).toBe(3);
    expect(drained(queue)).toEqual(['a1', 'a2', 'a3']);
    expect(queue.size).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });

  it('takes turns between accounts, however many items each has waiting', () => {
    const queue = new FairQueue<string>();
    for (let index = 1; index <= 4; index += 1) queue.push(['heavy', `check-${index}`], `heavy ${index}`);
    queue.push(['light', 'page'], 'light plan');
    expect(drained(queue)).toEqual(['heavy 1', 'light plan', 'heavy 2', 'heavy 3', 'heavy 4']);
  });

  it('serves an owner that comes back after its turn behind those waiting longer', () => {
    const queue = new FairQueue<string>();
    queue.push(['heavy', 'check-1'], 'heavy 1');
    expect(queue.shift()).toBe('heavy 1');
    // The heavy account had nothing waiting in between, but it was served last.
    queue.push(['heavy', 'check-2'], 'heavy 2');
    queue.push(['light', 'page'], 'light plan');
    expect(drained(queue)).toEqual(['light plan', 'heavy 2']);
  });

  it('alternates between an account with many items and a page whose items come one at a time', () => {
    const queue = new FairQueue<string>();
    for (let index = 1; index <= 3; index += 1) queue.push(['heavy', `check-${index}`], `heavy ${index}`);
    expect(queue.shift()).toBe('heavy 1');
    // A page's first job goes before the heavy account's next; its next job arrives once that is done.
    queue.push(['light', 'page'], 'light plan');
    expect(queue.shift()).toBe('light plan');
    expect(queue.shift()).toBe('heavy 2');
    queue.push(['light', 'page'], 'light draw');
    expect(drained(queue)).toEqual(['light draw', 'heavy 3']);
  });

  it('takes turns between the requests of one account', () => {
    const queue = new FairQueue<string>();
    for (const item of ['c1 wide', 'c1 narrow']) queue.push(['account', 'check-1'], item);
    for (const item of ['c2 wide', 'c2 narrow']) queue.push(['account', 'check-2'], item);
    queue.push(['account', 'page'], 'page plan');
    expect(drained(queue)).toEqual(['c1 wide', 'c2 wide', 'page plan', 'c1 narrow', 'c2 narrow']);
  });

  it('gives items without an owner turns of their own', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3']) queue.push(['a'], item);
    for (const item of ['anonymous 1', 'anonymous 2']) queue.push([], item);
    expect(drained(queue)).toEqual(['anonymous 1', 'a1', 'anonymous 2', 'a2', 'a3']);
  });

  it('takes an item out of the middle, and forgets owners left with nothing', () => {
    const queue = new FairQueue<string>();
    queue.push(['a', 'r1'], 'a1');
    queue.push(['b', 'r2'], 'b1');
    queue.push(['a', 'r1'], 'a2');
    expect(queue.remove(['b', 'r2'], 'b1')).toBe(true);
    expect(queue.remove(['b', 'r2'], 'b1')).toBe(false);
    expect(queue.remove(['a', 'r9'], 'a1')).toBe(false);
    expect(queue.size).toBe(2);
    expect(drained(queue)).toEqual(['a1', 'a2']);
  });
});
