/**
 * A thread for the thread pool's tests: doubles numbers, fails on request, ends itself, or says which
 * thread it is after a pause. `ARITHMETIC_THREAD_LOAD_MS` (read when the thread starts) makes it load slowly.
 */
import { threadId } from 'node:worker_threads';
import { serveThread } from '../thread-pool.js';

export type ArithmeticJob = { double: number } | { fail: string } | { exit: true } | { threadIdAfterMs: number };

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

pause(Number(process.env.ARITHMETIC_THREAD_LOAD_MS ?? 0));

serveThread((job: ArithmeticJob): number => {
  if ('fail' in job) throw new Error(job.fail);
  if ('exit' in job) process.exit(3);
  if ('threadIdAfterMs' in job) {
    pause(job.threadIdAfterMs);
    return threadId;
  }
  return job.double * 2;
});
