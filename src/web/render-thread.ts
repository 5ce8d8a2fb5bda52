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

const { runRenderJob } = await import('./page-renderer.js');
serveThread(runRenderJob);
