/**
 * A render thread: draws dashboard pages away from the thread that answers requests, and compresses
 * them once. See page-renderer.ts.
 */
import os from 'node:os';
import { serveThread } from '../thread-pool.js';

const RENDER_THREAD_NICENESS = 10;

// On Linux a nice value belongs to a thread: this one yields the CPU to the thread answering requests,
// so drawing pages uses spare cores instead of slowing API calls and git pushes. Set before ECharts is
// loaded, which takes most of a second of CPU that requests should not wait behind either.
try {
  os.setPriority(RENDER_THREAD_NICENESS);
} catch {
  // Not permitted here (some containers): drawings run at normal priority.
}

// ECharts prints warnings about an `option` (an unknown series type, a deprecated property) with the
// option's own strings in them: in the server's log they would let whoever publishes a dashboard write
// log lines of their choosing. What matters to the publisher is on the page and in `svc dashboard check`.
const silent = (): void => undefined;
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) console[method] = silent;

const { runRenderJob } = await import('./page-renderer.js');
serveThread(runRenderJob);
