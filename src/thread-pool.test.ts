import { afterEach, describe, expect, it } from 'vitest';
import type { ArithmeticJob } from './testing/arithmetic-thread.js';
import { ThreadPool } from './thread-pool.js';

const entry = new URL('./testing/arithmetic-thread.js', import.meta.url);

describe('ThreadPool', () => {
  const pools: Array<ThreadPool<ArithmeticJob, number>> = [];
  function pool(options: { threads: number; jobsPerThread?: number; entry?: URL }): ThreadPool<ArithmeticJob, number> {
    const created = new ThreadPool<ArithmeticJob, number>({ entry, ...options });
    pools.push(created);
    return created;
  }
  afterEach(async () => {
    delete process.env.ARITHMETIC_THREAD_LOAD_MS;
    await Promise.all(pools.splice(0).map((created) => created.close()));
  });

  it('answers every job of a burst with its own result when threads hold several jobs', async () => {
    const threads = pool({ threads: 2, jobsPerThread: 8 });
    const results = await Promise.all(Array.from({ length: 100 }, (_, index) => threads.run({ double: index })));
    expect(results).toEqual(Array.from({ length: 100 }, (_, index) => index * 2));
  });

  it('rejects only the job that failed, not the others sent with it', async () => {
    const threads = pool({ threads: 1, jobsPerThread: 16 });
    const outcomes = await Promise.allSettled([threads.run({ double: 1 }), threads.run({ fail: 'the second job is bad' }), threads.run({ double: 3 })]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: 2 });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('the second job is bad') } });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: 6 });
  });

  it('rejects every job a thread held when it ends, then answers on a new thread', async () => {
    const threads = pool({ threads: 1, jobsPerThread: 16 });
    const held = await Promise.allSettled([threads.run({ exit: true }), threads.run({ double: 5 })]);
    for (const outcome of held) expect(outcome).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('exited (code 3)') } });
    expect(await threads.run({ double: 21 })).toBe(42);
  });

  it('gives a job to a thread that frees up rather than to one still loading', async () => {
    const threads = pool({ threads: 2 });
    expect(await threads.run({ double: 1 })).toBe(2);
    // The second thread, started when the first is busy, takes 3 s to load.
    process.env.ARITHMETIC_THREAD_LOAD_MS = '3000';
    const [first, second] = await Promise.all([threads.run({ threadIdAfterMs: 100 }), threads.run({ threadIdAfterMs: 0 })]);
    expect(second).toBe(first);
  });

  it('starts its threads when asked, and never more than it may have', async () => {
    const threads = pool({ threads: 2 });
    threads.start();
    threads.start();
    const ids = await Promise.all(Array.from({ length: 6 }, () => threads.run({ threadIdAfterMs: 50 })));
    expect(new Set(ids).size).toBe(2);
  });

  it('fails the waiting jobs with the error of a thread that cannot load, and tries a new thread for the next job', async () => {
    const threads = pool({ threads: 2, entry: new URL('./testing/unloadable-thread.js', import.meta.url) });
    const outcomes = await Promise.allSettled([threads.run({ double: 1 }), threads.run({ double: 2 })]);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'rejected', reason: { message: 'this thread cannot load' } });
    await expect(threads.run({ double: 3 })).rejects.toThrow('this thread cannot load');
  });

  it('refuses settings it cannot honour', () => {
    expect(() => new ThreadPool({ entry, threads: 1, jobsPerThread: 0 })).toThrow('jobsPerThread must be a positive integer');
    expect(() => new ThreadPool({ entry, threads: 1, jobsPerThread: 4, timeoutMs: 100 })).toThrow('a pool with a time limit runs one job per thread at a time');
  });
});
