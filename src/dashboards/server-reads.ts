/**
 * Reads the server makes on its own behalf, with no person or token acting: drawing a version just
 * published before anyone asks for it, and deciding at start whether to warm the render threads. Nothing
 * here answers a request, so nothing checks access; what a request reads goes through read-dashboards.ts.
 */
import type { Services } from '../context.js';
import type { DashboardVersionRef } from '../events.js';
import { anyDashboard, findVersion, type StoredVersion } from './store.js';

/** The version a publish announced, or null once it is gone (deleted, or pruned by later publishes). */
export async function publishedVersion(services: Services, target: DashboardVersionRef): Promise<StoredVersion | null> {
  return (await findVersion(services.db, target.accountId, target.slug, target.version)) ?? null;
}

/** Whether any account has a dashboard: a server with none has no page to warm its render threads for. */
export async function anyDashboardPublished(services: Services): Promise<boolean> {
  return anyDashboard(services.db);
}
