import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.js';
import { buildLargeTableSpec, buildTypicalSpec } from '../src/dashboards/fixtures/specs.js';
import { validateDashboardSpec } from '../src/dashboards/validate-spec.js';
import { loadServer } from './http-load.js';
import { round, startBenchServer, timeMedian } from './support.js';

/**
 * The in-process floor: the least work any implementation must do per publish — parse the JSON,
 * validate it, and insert one row — with no HTTP, auth or versioning around it.
 */
async function measureFloor(text: string, seconds: number): Promise<{ perSecond: number; msPerPublish: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-floor-'));
  const handle = await openDatabase({ dataDir });
  try {
    let version = 0;
    const once = async () => {
      const doc = JSON.parse(text) as unknown;
      const result = validateDashboardSpec(doc, { sourceText: text });
      if (!result.ok) throw new Error('floor document is invalid');
      version += 1;
      await handle.db
        .insertInto('dashboard_versions')
        .values({ account_id: 'floor', slug: 'floor', version, spec: text, created_at: new Date().toISOString() })
        .execute();
    };
    await handle.db.insertInto('accounts').values({ id: 'floor', name: 'floor', created_at: new Date().toISOString() }).execute();
    await handle.db
      .insertInto('dashboards')
      .values({ account_id: 'floor', slug: 'floor', title: 'floor', subtitle: null, group_name: null, group_order: null, sort_order: null, tone: null, layout: null, version: 0, created_at: '', updated_at: '' })
      .execute();
    for (let i = 0; i < 50; i += 1) await once();
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      await once();
      count += 1;
    }
    const elapsed = performance.now() - start;
    return { perSecond: round((count * 1000) / elapsed, 0), msPerPublish: round(elapsed / count, 3) };
  } finally {
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runPublishBench(): Promise<Record<string, unknown>> {
  const typical = JSON.stringify(buildTypicalSpec());
  const largest = JSON.stringify(buildLargeTableSpec(5000, 16));
  const duration = Number(process.env.BENCH_SECONDS ?? 8);

  const typicalFloor = await measureFloor(typical, 3);
  const largestFloor = await measureFloor(largest, 3);

  const single = await measureHttp(typical, largest, duration, 1);
  const twoWorkers = await measureHttp(typical, largest, duration, 2);

  return {
    typical_spec_bytes: Buffer.byteLength(typical),
    http_client: single.client,
    http_connections: 32,
    http_publishes_per_second: single.perSecond,
    http_latency_ms: single.latencyMs,
    http_publishes_per_second_2_workers: twoWorkers.perSecond,
    http_latency_ms_2_workers: twoWorkers.latencyMs,
    http_failed_requests: single.failed + twoWorkers.failed,
    floor_in_process_publishes_per_second: typicalFloor.perSecond,
    http_share_of_floor: round(single.perSecond / typicalFloor.perSecond, 3),
    http_share_of_floor_2_workers: round(twoWorkers.perSecond / typicalFloor.perSecond, 3),
    target_publishes_per_second: 3000,
    largest_spec_bytes: Buffer.byteLength(largest),
    largest_publish_ms: single.largestMs,
    largest_floor_in_process_ms: largestFloor.msPerPublish,
    target_largest_publish_ms: 60,
  };
}

async function measureHttp(typical: string, largest: string, duration: number, workers: number) {
  const server = await startBenchServer({ SVC_WORKERS: String(workers) });
  try {
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    // The largest document first, on a server at rest: after the load below, the server is still
    // checkpointing the log and drawing the last typical version, which would be measured instead.
    const largestMs = await timeMedian(15, 5, async () => {
      const response = await fetch(`${server.url}/api/dashboards`, { method: 'POST', headers, body: largest });
      if (!response.ok) throw new Error(`largest publish failed: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    });
    // Warm the server (JIT, SQLite page cache) before measuring.
    const target = { url: `${server.url}/api/dashboards`, method: 'POST' as const, headers, body: typical, connections: 32 };
    await loadServer({ ...target, seconds: 2 });
    const load = await loadServer({ ...target, seconds: duration });
    return { ...load, largestMs: round(largestMs, 1) };
  } finally {
    await server.stop();
  }
}
