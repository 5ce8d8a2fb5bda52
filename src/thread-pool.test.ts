import { afterEach, describe, expect, it } from 'vitest';
import type { ArithmeticJob } from './testing/arithmetic-thread.js';
import { ThreadPool } from './thread-pool.js';

const entry = new URL('./testing/arithmetic-thread.js', import.meta.url);

describe('ThreadPool', () => {
  const pools: Array<ThreadPool<ArithmeticJob, number>> = [];
  function pool(options: { threads: number; jobsPerThread?: number; entry?: URL; timeoutMs?: number; abandonedGraceMs?: number }): ThreadPool<ArithmeticJob, number> {
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
    // A thread takes jobs once it has loaded, which on a busy machine can outlast a round: rounds until both answer.
    const ids = new Set<number>();
    const deadline = Date.now() + 20_000;
    while (ids.size < 2 && Date.now() < deadline) {
      for (const id of await Promise.all(Array.from({ length: 6 }, () => threads.run({ threadIdAfterMs: 50 })))) ids.add(id);
    }
    expect(ids.size).toBe(2);
  });

  it('fails the waiting jobs with the error of a thread that cannot load, and tries a new thread for the next job', async () => {
    const threads = pool({ threads: 2, entry: new URL('./testing/unloadable-thread.js', import.meta.url) });
    const outcomes = await Promise.allSettled([threads.run({ double: 1 }), threads.run({ double: 2 })]);
    for (const outcome of outcomes) expect(outcome).toMatchObject({ status: 'rejected', reason: { message: 'this thread cannot load' } });
    await expect(threads.run({ double: 3 })).rejects.toThrow('this thread cannot load');
  });

  it('takes waiting jobs in turns by account, then by request, not in the order they came', async () => {
    const threads = pool({ threads: 1 });
    await threads.run({ double: 0 });
    const order: string[] = [];
    const job = (label: string, queue: string[]) => threads.run({ threadIdAfterMs: 20 }, { queue }).then(() => order.push(label));
    // The thread is busy with the first; the rest wait.
    const jobs = [job('heavy check 1', ['heavy', 'c1'])];
    for (let index = 2; index <= 4; index += 1) jobs.push(job(`heavy check ${index}`, ['heavy', `c${index}`]));
    jobs.push(job('heavy check 1 again', ['heavy', 'c1']));
    jobs.push(job('light page', ['light', 'p1']));
    await Promise.all(jobs);
    expect(order).toEqual(['heavy check 1', 'light page', 'heavy check 2', 'heavy check 3', 'heavy check 4', 'heavy check 1 again']);
  });

  it('drops a waiting job whose caller has gone, without running it', async () => {
    const threads = pool({ threads: 1 });
    await threads.run({ double: 0 });
    const busy = threads.run({ threadIdAfterMs: 300 });
    const caller = new AbortController();
    const dropped = threads.run({ exit: true }, { signal: caller.signal });
    expect(threads.waiting).toBe(1);
    caller.abort(new Error('the client went away'));
    await expect(dropped).rejects.toThrow('the client went away');
    expect(threads.waiting).toBe(0);
    // Had the dropped job run, its thread would have exited and taken this one with it.
    const thread = await busy;
    expect(await threads.run({ threadIdAfterMs: 0 })).toBe(thread);
    await expect(threads.run({ double: 1 }, { signal: caller.signal })).rejects.toThrow('the client went away');
  });

  it('ends the thread of a running job whose caller has gone, and answers the next job on a new thread', async () => {
    const threads = pool({ threads: 1, abandonedGraceMs: 0 });
    const first = await threads.run({ threadIdAfterMs: 0 });
    const caller = new AbortController();
    // Long enough that, were it left to run, the next job would outlast the test.
    const abandoned = threads.run({ threadIdAfterMs: 120_000 }, { signal: caller.signal });
    while (threads.running === 0 || threads.waiting > 0) await new Promise((resolve) => setImmediate(resolve));
    caller.abort(new Error('the client went away'));
    await expect(abandoned).rejects.toThrow('the client went away');
    const next = await threads.run({ threadIdAfterMs: 0 });
    expect(next).not.toBe(first);
    expect(threads.running).toBe(0);
  });

  it('lets a running job whose caller has gone finish within the grace time, keeping its thread', async () => {
    const threads = pool({ threads: 1, abandonedGraceMs: 60_000 });
    const first = await threads.run({ threadIdAfterMs: 0 });
    const caller = new AbortController();
    const abandoned = threads.run({ threadIdAfterMs: 50 }, { signal: caller.signal });
    caller.abort(new Error('gone'));
    await expect(abandoned).rejects.toThrow('gone');
    expect(await threads.run({ threadIdAfterMs: 0 })).toBe(first);
  });

  it('stops a job at its own time limit when it has one', async () => {
    const threads = new ThreadPool<ArithmeticJob, number>({ entry, threads: 1, timeoutMs: 60_000, timeoutError: (ms) => new Error(`stopped after ${ms} ms`) });
    pools.push(threads);
    await expect(threads.run({ threadIdAfterMs: 60_000 }, { timeoutMs: 200 })).rejects.toThrow('stopped after 200 ms');
    expect(await threads.run({ double: 4 })).toBe(8);
    expect(() => pool({ threads: 1 }).run({ double: 1 }, { timeoutMs: 100 })).toThrow('a job may have its own time limit only in a pool with one');
  });

  it('refuses settings it cannot honour', () => {
    expect(() => new ThreadPool({ entry, threads: 1, jobsPerThread: 0 })).toThrow('jobsPerThread must be a positive integer');
    expect(() => new ThreadPool({ entry, threads: 1, jobsPerThread: 4, timeoutMs: 100 })).toThrow('a pool with a time limit runs one job per thread at a time');
  });
});
