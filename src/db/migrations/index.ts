import type { MigrationProvider } from 'kysely';
import type { Dialect } from '../database.js';
import type { MigrationFactory } from './column-types.js';
import { initial } from './0001-initial.js';
import { changeRequests } from './0002-change-requests.js';
import { dashboardOrderAnyInteger } from './0003-dashboard-order-any-integer.js';
import { accessThatEnds } from './0004-access-that-ends.js';
import { dashboardOwners } from './0006-dashboard-owners.js';
import { taskLeases } from './0007-task-leases.js';
import { sessions } from './0008-sessions.js';
import { triggers } from './0009-triggers.js';
import { mergeIntentHeartbeat } from './0005-merge-intent-heartbeat.js';
import { signIns } from './0013-sign-ins.js';
import { sessionConversations } from './0014-session-conversations.js';
import { triggerFireQueue } from './0016-trigger-fire-queue.js';
import { bundledModelAccess } from './0017-bundled-model-access.js';
import { sandboxUnstopped } from './0018-sandbox-unstopped.js';
import { triggerFireDeliveryFirst } from './0019-trigger-fire-delivery-first.js';
import { triggerFiresUnstarted } from './0020-trigger-fires-unstarted.js';
import { triggerFiresPending } from './0021-trigger-fires-pending.js';
import { triggerFiresPendingOldest } from './0022-trigger-fires-pending-oldest.js';

/**
 * Migrations are code, not files read at run time, so they ship inside the build. Names sort in order;
 * append new ones and never edit one that has been released.
 */
const migrations: Record<string, MigrationFactory> = {
  '0001_initial': initial,
  '0002_change_requests': changeRequests,
  '0003_dashboard_order_any_integer': dashboardOrderAnyInteger,
  '0004_access_that_ends': accessThatEnds,
  '0006_dashboard_owners': dashboardOwners,
  '0007_task_leases': taskLeases,
  '0008_sessions': sessions,
  '0009_triggers': triggers,
  '0005_merge_intent_heartbeat': mergeIntentHeartbeat,
  '0013_sign_ins': signIns,
  '0014_session_conversations': sessionConversations,
  '0016_trigger_fire_queue': triggerFireQueue,
  '0017_bundled_model_access': bundledModelAccess,
  '0018_sandbox_unstopped': sandboxUnstopped,
  '0019_trigger_fire_delivery_first': triggerFireDeliveryFirst,
  '0020_trigger_fires_unstarted': triggerFiresUnstarted,
  '0021_trigger_fires_pending': triggerFiresPending,
  '0022_trigger_fires_pending_oldest': triggerFiresPendingOldest,
};

export function migrationProvider(dialect: Dialect): MigrationProvider {
  return {
    async getMigrations() {
      return Object.fromEntries(Object.entries(migrations).map(([name, factory]) => [name, factory(dialect)]));
    },
  };
}
