/**
 * Every piece of background work svc does, in one list: the server starts them after it listens and
 * stops them before it closes. Domains declare their tasks; this is the only place that knows them all.
 */
import type { BackgroundTask } from '../background/task-runner.js';
import { mergeIntentSweep } from '../changes/repair-interrupted-merges.js';
import type { Config } from '../config.js';
import { feedbackDeliveryTask } from '../sessions/feedback-delivery.js';
import { idleSweepTask } from '../sessions/idle-sweep.js';
import { messageDeliveryTask } from '../sessions/message-delivery.js';
import { recoverSandboxesTask } from '../sessions/recover-sandboxes.js';
import { triggerDispatchTask } from '../triggers/dispatch-fires.js';
import { triggerSchedulerTask } from '../triggers/scheduler.js';
import { expiredLoginFailuresSweep } from '../accounts/login-throttle.js';
import { expiredSignInsSweep } from '../accounts/sign-ins.js';

export function backgroundTasks(config: Config, onError: (error: unknown, what: string) => void = () => undefined): BackgroundTask[] {
  return [
    expiredSignInsSweep,
    expiredLoginFailuresSweep,
    mergeIntentSweep(config.mergeHeartbeatTimeoutMs),
    idleSweepTask(config.sessions.sweepIntervalMs),
    messageDeliveryTask,
    feedbackDeliveryTask,
    recoverSandboxesTask(config.sessions.watchIntervalMs),
    triggerSchedulerTask(config.triggers.schedulerIntervalMs),
    triggerDispatchTask(config.triggers.dispatchIntervalMs, (error, fireId) => onError(error, `starting trigger fire ${fireId}`)),
  ];
}
