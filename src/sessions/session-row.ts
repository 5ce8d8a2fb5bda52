import type { Selectable } from 'kysely';
import type { SessionsTable } from '../db/schema.js';

/** A session as both dialects return it. */
export type SessionRow = Selectable<SessionsTable>;

/** Statuses that hold a sandbox slot (contract §6: the per-account cap counts them). */
export const ACTIVE_STATUSES = ['provisioning', 'running'] as const;

/** Statuses of a session on its way to running or running: the project overview's "Running sessions". */
export const UNDER_WAY_STATUSES = ['queued', 'branching', 'provisioning', 'running'] as const;
