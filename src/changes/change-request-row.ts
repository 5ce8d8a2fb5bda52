import type { Selectable } from 'kysely';
import type { ChangeRequestsTable, ChangeRequestStatus } from '../db/schema.js';

/** A change_requests row as both dialects return it (metadata may still be JSON text on SQLite). */
export type ChangeRequestRow = Selectable<ChangeRequestsTable>;

export type { ChangeRequestStatus };

export const CHANGE_REQUEST_STATUSES: readonly ChangeRequestStatus[] = ['open', 'merged', 'closed'];

/** One entry of metadata.requested_changes (spec 2): the feedback, the user id who gave it, and when (ISO-8601). */
export interface RequestedChange {
  text: string;
  by: string;
  at: string;
}

export interface ChangeRequestMetadata {
  requested_changes?: RequestedChange[];
  [key: string]: unknown;
}
