import { describe, expect, it } from 'vitest';
import { isRepoLocked, withRepoLock } from './repo-lock.js';

const tick = (ms = 1): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('withRepoLock', () => {
  it('runs work on one repository one at a time, in the order it was asked for', async () => {
    const events: string[] = [];
    const job = (name: string, ms: number) =>
      withRepoLock('/repos/a.git', async () => {
        events.push(`start ${name}`);
        await tick(ms);
        events.push(`end ${name}`);
        return name;
      });
    // The first job is the slowest: a lock that let later ones overtake would interleave.
    const results = await Promise.all([job('1', 30), job('2', 1), job('3', 10), job('4', 0)]);
    expect(results).toEqual(['1', '2', '3', '4']);
    expect(events).toEqual(['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3', 'start 4', 'end 4']);
    expect(isRepoLocked('/repos/a.git')).toBe(false);
  });

  it('releases the lock when the work throws, and passes the error on', async () => {
    const failing = withRepoLock('/repos/b.git', async () => {
      await tick(5);
      throw new Error('boom');
    });
    const next = withRepoLock('/repos/b.git', async () => 'ran');
    await expect(failing).rejects.toThrow('boom');
    await expect(next).resolves.toBe('ran');
    expect(isRepoLocked('/repos/b.git')).toBe(false);
  });

  it('does not serialize different repositories, and treats equivalent paths as one', async () => {
    const events: string[] = [];
    let releaseA!: () => void;
    const a = withRepoLock('/repos/c.git', async () => {
      events.push('a start');
      await new Promise<void>((resolve) => {
        releaseA = resolve;
      });
      events.push('a end');
    });
    const other = withRepoLock('/repos/d.git', async () => {
      events.push('other repo');
    });
    const samePath = withRepoLock('/repos/x/../c.git', async () => {
      events.push('same repo');
    });
    await other;
    await tick(5);
    expect(events).toEqual(['a start', 'other repo']);
    expect(isRepoLocked('/repos/c.git')).toBe(true);
    releaseA();
    await Promise.all([a, samePath]);
    expect(events).toEqual(['a start', 'other repo', 'a end', 'same repo']);
  });
});
