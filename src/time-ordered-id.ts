// Its own module, not ids.ts: the svc CLI in sandboxes imports ids.ts and carries no more packages than it needs.
import { randomFillSync } from 'node:crypto';
import { v7 as uuidV7 } from 'uuid';

/** Random bytes drawn from the kernel 4 KiB at a time: uuid's own source asks Web Crypto for 16 bytes per id, 5 µs each. */
const pool = Buffer.alloc(4096);
let drawn = pool.length;

function randomBytes16(): Buffer {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  drawn += 16;
  return pool.subarray(drawn - 16, drawn);
}

/** The last id's millisecond and counter: ids made within one millisecond count up from a random start, as uuid's own do. */
let lastMs = -Infinity;
let sequence = 0;

/**
 * A UUID whose first bits are its creation time (RFC 9562 version 7), for rows written by the thousand: their
 * primary key index grows at its end instead of at random places, which made inserting webhook fires three
 * times faster on SQLite (64-row inserts into a table of 100,000: 19,000 rows/s with random ids, 63,000).
 * Ids made in this process sort in the order they were made.
 */
export function newTimeOrderedId(): string {
  const random = randomBytes16();
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    // 31 bits, so that thousands of ids in one millisecond count up without reaching the next one.
    sequence = random.readUInt32BE(6) & 0x7fffffff;
  } else {
    sequence = (sequence + 1) | 0;
    if (sequence === 0) lastMs += 1;
  }
  return uuidV7({ random, msecs: lastMs, seq: sequence });
}
