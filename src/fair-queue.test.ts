import { describe, expect, it } from 'vitest';
import { FairQueue, USAGE_HALF_LIFE_MS } from './fair-queue.js';

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

  it("puts a page's light jobs before its own account's checks that drew for seconds", () => {
    const queue = new FairQueue<string>(() => 0);
    queue.push(['account', 'check-1'], 'c1 wide');
    queue.push(['account', 'check-2'], 'c2 wide');
    for (const check of ['check-1', 'check-2']) {
      queue.shift();
      queue.charge(['account', check], 5000);
    }
    queue.push(['account', 'check-1'], 'c1 narrow');
    queue.push(['account', 'check-2'], 'c2 narrow');
    queue.push(['account', 'page'], 'page plan');
    expect(queue.shift()).toBe('page plan');
    queue.charge(['account', 'page'], 15);
    // The page was served last, but has used far less.
    queue.push(['account', 'page'], 'page draw');
    expect(drained(queue)).toEqual(['page draw', 'c1 narrow', 'c2 narrow']);
  });

  it('shares turns between accounts by the thread time each used lately, forgiving old use', () => {
    let now = 0;
    const queue = new FairQueue<string>(() => now);
    queue.push(['heavy', 'check'], 'heavy 1');
    expect(queue.shift()).toBe('heavy 1');
    queue.charge(['heavy', 'check'], 5000);
    queue.push(['heavy', 'check'], 'heavy 2');
    queue.push(['light', 'page'], 'light 1');
    expect(queue.shift()).toBe('light 1');
    // One half-life on, the heavy account's 5,000 ms count as 2,500, less than the light one's 3,000 just now.
    now = USAGE_HALF_LIFE_MS;
    queue.charge(['light', 'page'], 3000);
    queue.push(['light', 'page'], 'light 2');
    expect(drained(queue)).toEqual(['heavy 2', 'light 2']);
  });

  it('gives items without an owner turns of their own', () => {
    const queue = new FairQueue<string>();
    for (const item of ['a1', 'a2', 'a3']) queue.push(['a'], item);
    for (const item of ['anonymous 1', 'anonymous 2']) queue.push([], item);
    expect(drained(queue)).toEqual(['a1', 'anonymous 1', 'a2', 'anonymous 2', 'a3']);
  });

  it('takes an item out of the middle', () => {
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
