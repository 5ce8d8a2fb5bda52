/**
 * Every piece of background work svc does, in one list: the server starts them after it listens and
 * stops them before it closes. Domains declare their tasks; this is the only place that knows them all.
 */
import type { BackgroundTask } from '../background/task-runner.js';
import { expiredWebSessionsSweep } from '../web/web-sessions.js';

export function backgroundTasks(): BackgroundTask[] {
  return [expiredWebSessionsSweep];
}
