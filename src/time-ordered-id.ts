// Its own module, not ids.ts: the svc CLI in sandboxes imports ids.ts and carries no more packages than it needs.
import { v7 as uuidV7 } from 'uuid';

/**
 * A UUID whose first bits are its creation time (RFC 9562 version 7), for rows written by the thousand: their
 * primary key index grows at its end instead of at random places, which made inserting webhook fires three
 * times faster on SQLite (64-row inserts into a table of 100,000: 19,000 rows/s with random ids, 63,000).
 */
export function newTimeOrderedId(): string {
  return uuidV7();
}
