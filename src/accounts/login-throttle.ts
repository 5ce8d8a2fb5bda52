/**
 * Failed sign-ins are counted per user name and address, and per address, in the database, so every
 * worker process and replica counts the same ones: ten wrong passwords for one name from one address
 * block that pair for 15 minutes, and a hundred failures from one address in an hour block it for an
 * hour. A success clears its pair's count. Tokens are not guessable, but their failures count too.
 */
import { sql } from 'kysely';
import { RateLimiterPostgres, RateLimiterRes, RateLimiterSQLite, type RateLimiterStoreAbstract } from 'rate-limiter-flexible';
import type { BackgroundTask } from '../background/task-runner.js';
import type { DriverClient } from '../db/database.js';

const FAILS_PER_NAME_AND_ADDRESS = 10;
const NAME_AND_ADDRESS_WINDOW_SECONDS = 60 * 60;
const NAME_AND_ADDRESS_BLOCK_SECONDS = 15 * 60;
const FAILS_PER_ADDRESS = 100;
const ADDRESS_WINDOW_SECONDS = 60 * 60;
const ADDRESS_BLOCK_SECONDS = 60 * 60;
const TABLE = 'login_throttle';

/** How long until this sign-in may be tried again, when it may not be now. */
export interface Refusal {
  retryAfterSeconds: number;
  reason: 'name' | 'address';
}

/**
 * Replicas starting together each create the table (CREATE TABLE IF NOT EXISTS), and PostgreSQL lets two such
 * creations race: the loser fails on the table's type (a unique violation in pg_type, 23505, or "type
 * \"login_throttle\" already exists", 42710) or its name (42P07). The table is there then, so the loser tries again.
 */
const CREATION_RACE_CODES = new Set(['23505', '42710', '42P07']);

async function limiter(driver: DriverClient, keyPrefix: string, points: number, duration: number, blockDuration: number): Promise<RateLimiterStoreAbstract> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await createLimiter(driver, keyPrefix, points, duration, blockDuration);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= 3 || typeof code !== 'string' || !CREATION_RACE_CODES.has(code)) throw error;
    }
  }
}

function createLimiter(driver: DriverClient, keyPrefix: string, points: number, duration: number, blockDuration: number): Promise<RateLimiterStoreAbstract> {
  return new Promise((resolve, reject) => {
    // Counts that ran out are deleted by expiredLoginFailuresSweep, which stops with the server: the limiter's
    // own timer outlived the SQLite connection it swept, and its failure there was an unhandled rejection.
    const options = { keyPrefix, points, duration, blockDuration, tableName: TABLE, clearExpiredByTimeout: false };
    const ready = (error?: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(created));
    const created: RateLimiterStoreAbstract =
      driver.dialect === 'sqlite'
        ? new RateLimiterSQLite({ ...options, storeClient: driver.sqlite, storeType: 'better-sqlite3' }, ready)
        : new RateLimiterPostgres({ ...options, storeClient: driver.pool, storeType: 'pool' }, ready);
  });
}

/** Forgets counts and blocks that ran out over an hour ago (as the limiter itself would), on one replica at a time. */
export const expiredLoginFailuresSweep: BackgroundTask = {
  name: 'expired-login-failures',
  runsOn: 'one-replica',
  intervalMs: 5 * 60 * 1000,
  async run({ services, now }) {
    await sql`delete from ${sql.table(TABLE)} where expire < ${now.getTime() - 60 * 60 * 1000}`.execute(services.db);
  },
};

function blockedFor(result: RateLimiterRes | null, points: number): number | null {
  if (!result || result.consumedPoints < points) return null;
  return Math.max(1, Math.ceil(result.msBeforeNext / 1000));
}

export class LoginThrottle {
  private constructor(
    private readonly byNameAndAddress: RateLimiterStoreAbstract,
    private readonly byAddress: RateLimiterStoreAbstract,
  ) {}

  static async open(driver: DriverClient): Promise<LoginThrottle> {
    // One after the other: both create the same table.
    const byNameAndAddress = await limiter(driver, 'name-address', FAILS_PER_NAME_AND_ADDRESS, NAME_AND_ADDRESS_WINDOW_SECONDS, NAME_AND_ADDRESS_BLOCK_SECONDS);
    const byAddress = await limiter(driver, 'address', FAILS_PER_ADDRESS, ADDRESS_WINDOW_SECONDS, ADDRESS_BLOCK_SECONDS);
    return new LoginThrottle(byNameAndAddress, byAddress);
  }

  /** Null when this name may try to sign in from this address now. */
  async refusal(name: string, address: string): Promise<Refusal | null> {
    const [pair, whole] = await Promise.all([this.byNameAndAddress.get(pairKey(name, address)), this.byAddress.get(address)]);
    const addressWait = blockedFor(whole, FAILS_PER_ADDRESS);
    if (addressWait !== null) return { retryAfterSeconds: addressWait, reason: 'address' };
    const pairWait = blockedFor(pair, FAILS_PER_NAME_AND_ADDRESS);
    return pairWait === null ? null : { retryAfterSeconds: pairWait, reason: 'name' };
  }

  async failed(name: string, address: string): Promise<void> {
    await Promise.all([
      countFailure(this.byNameAndAddress, pairKey(name, address), FAILS_PER_NAME_AND_ADDRESS, NAME_AND_ADDRESS_BLOCK_SECONDS),
      countFailure(this.byAddress, address, FAILS_PER_ADDRESS, ADDRESS_BLOCK_SECONDS),
    ]);
  }

  async succeeded(name: string, address: string): Promise<void> {
    await this.byNameAndAddress.delete(pairKey(name, address));
  }
}

/** As JSON: unambiguous, and with no NUL character, which PostgreSQL text cannot hold, whatever the form sent. */
function pairKey(name: string, address: string): string {
  return JSON.stringify([address, name]);
}

/**
 * Counts a failure, and blocks the key for `blockSeconds` from the one that uses up its count: the
 * limiter itself would block only from the next one, until when it reports its window's time left.
 */
async function countFailure(limiterOf: RateLimiterStoreAbstract, key: string, points: number, blockSeconds: number): Promise<void> {
  let consumed: number;
  try {
    consumed = (await limiterOf.consume(key)).consumedPoints;
  } catch (error) {
    // Rejected with the limiter's state once the count is used up: no error here.
    if (!(error instanceof RateLimiterRes)) throw error;
    consumed = error.consumedPoints;
  }
  if (consumed === points) await limiterOf.block(key, blockSeconds);
}
