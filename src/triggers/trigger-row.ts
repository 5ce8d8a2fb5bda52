import type { Selectable } from 'kysely';
import type { TriggerFiresTable, TriggersTable } from '../db/schema.js';
import { readJson } from '../db/values.js';
import type { NormalizedTrigger } from '../manifest/index.js';

export type TriggerRow = Selectable<TriggersTable>;
export type TriggerFireRow = Selectable<TriggerFiresTable>;

export function definitionOf(row: Pick<TriggerRow, 'definition'>): NormalizedTrigger {
  return readJson<NormalizedTrigger>(row.definition, null as unknown as NormalizedTrigger);
}

/** Fires are listed for 30 days (contract §7); the dispatch task deletes older ones. */
export const FIRES_KEPT_MS = 30 * 86_400_000;

/** How many fires one page of a trigger's listing holds when the caller names no limit, and at most. */
export const DEFAULT_FIRES_PER_PAGE = 100;
export const MAX_FIRES_PER_PAGE = 1000;
