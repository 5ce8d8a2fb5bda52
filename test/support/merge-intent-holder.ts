/**
 * A stand-in for a replica in the middle of a merge, run as its own process by test/changes-merge-takeover:
 * it journals a merge intent with the server's own code and renews its heartbeat, as mergeChangeRequest
 * does while base moves, until the test kills it (SIGKILL: no clean-up, exactly what a dying replica leaves).
 *
 * Usage: node --import tsx merge-intent-holder.ts '<json: {dataDir, databaseUrl?, heartbeatTimeoutMs, intent}>'
 * Prints "held <owner>" once the intent is written.
 */
import { writeMergeIntent } from '../../src/changes/merge-intent-lease.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';

const input = JSON.parse(process.argv[2] ?? '{}') as {
  dataDir: string;
  databaseUrl?: string;
  heartbeatTimeoutMs: number;
  intent: Parameters<typeof writeMergeIntent>[1];
};
const config = loadConfig({ SVC_MERGE_HEARTBEAT_TIMEOUT_MS: String(input.heartbeatTimeoutMs) }, { dataDir: input.dataDir, databaseUrl: input.databaseUrl });
const database = await openDatabase({ dataDir: input.dataDir, databaseUrl: input.databaseUrl });
const lease = await writeMergeIntent({ db: database.db, dialect: database.dialect, config }, input.intent);
if (!lease) {
  process.stdout.write('refused\n');
  process.exit(1);
}
process.stdout.write(`held ${lease.owner}\n`);
// The renewals do not keep a process alive on their own (see holdIntent); this one lives until it is killed.
setInterval(() => undefined, 1 << 30);
