/**
 * The order test files start in: the few that take minutes first, longest first, then every other file in
 * an order the seed shuffles (so a file that needs another to run before it still fails here, not by chance).
 * The machine is CPU-bound while two files run; a minutes-long file started last ran alone at the end, and
 * the SQLite pass ended 5–6 minutes after the sum of its files' times, split over two, said it could.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Measured in CI runs on 2026-11-30 (seconds of a file's own run, beside another file): above 50 s. */
const LONGEST_FILES = [
  'test/sessions-faults-docker.test.ts', // 268 s
  'test/browser-dashboards.test.ts', // 206
  'test/sessions-faults.test.ts', // 172
  'test/sandbox-disk-bubblewrap.test.ts', // 147
  'test/browser-change-requests.test.ts', // 103
  'test/sessions-docker-engine-restart.test.ts', // 100
  'test/sandbox-disk-docker.test.ts', // 97
  'test/cli-admin.test.ts', // 79
  'test/changes-git.test.ts', // 73
  'test/browser-sessions.test.ts', // 60
  'test/sessions-docker-hung-engine-restart.test.ts', // 58
  'test/serve.test.ts', // 57
  'test/sessions-process.test.ts', // 56
  'test/changes-concurrency.test.ts', // 54 on PostgreSQL
  'test/changes-lifecycle.test.ts', // 54
];

/** A small seeded generator (mulberry32): the same seed gives the same order, as vitest's own shuffle does. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const next = random(Number(this.ctx.config.sequence.seed ?? Date.now()));
    const shuffled = [...files];
    for (let i = shuffled.length - 1; i > 0; i -= 1) {
      const j = Math.floor(next() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FILES.indexOf(path.relative(this.ctx.config.root, file.moduleId).split(path.sep).join('/'));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    // A stable sort: the long files in their order, the others in the shuffled one.
    return shuffled.sort((a, b) => rank(a) - rank(b));
  }
}
