import { randomUUID } from 'node:crypto';
import { v7 as uuidV7 } from 'uuid';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export function newId(): string {
  return randomUUID();
}

/**
 * A UUID whose first bits are its creation time (RFC 9562 version 7), for rows written by the thousand: their
 * primary key index grows at its end instead of at random places, which made inserting webhook fires three
 * times faster on SQLite (64-row inserts into a table of 100,000: 19,000 rows/s with random ids, 63,000).
 */
export function newTimeOrderedId(): string {
  return uuidV7();
}
