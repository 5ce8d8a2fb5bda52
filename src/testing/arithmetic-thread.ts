/** A thread for the thread pool's tests: doubles numbers, fails on request, or ends itself. */
import { serveThread } from '../thread-pool.js';

export type ArithmeticJob = { double: number } | { fail: string } | { exit: true };

serveThread((job: ArithmeticJob): number => {
  if ('fail' in job) throw new Error(job.fail);
  if ('exit' in job) process.exit(3);
  return job.double * 2;
});
