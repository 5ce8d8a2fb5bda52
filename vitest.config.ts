import os from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/longest-first-sequencer.js';

/**
 * Two projects: `database` holds the tests whose subject is what svc keeps in its database (CI runs it once
 * per database: SQLite, then PostgreSQL); `once` holds the rest, which run once on SQLite. `npm test` runs both.
 *
 * Files (after the few longest, started first) and the tests within each file run in a random order (the seed
 * is printed; `--sequence.seed=N` repeats an order), so a test that needs another to run first fails here
 * rather than by chance in CI.
 * dist/ is built before any test runs, so tests that spawn the bin/ programs never run a stale build.
 */
/**
 * Tests under test/ that run once: those that need no database (the in-sandbox daemon, the sandbox providers'
 * conformance suite, the import boundaries, the documentation), and those that use one only as the place svc
 * keeps its state while their subject is elsewhere: a sandbox provider's faults and its engine's restarts
 * (what they write, a session failed or resumed, the sessions tests cover on both databases), the rendering
 * of dashboards (in Chromium and on the render threads; the dashboards API tests cover their storage on both),
 * the web app's pages in Chromium (they call the services whose API tests run on both; the whole loop in
 * Chromium still runs on both), and `svc serve` itself, which its tests start on SQLite whatever the pass.
 * Run twice, these were half of the PostgreSQL pass and kept CI over its 30 minutes.
 */
const testsRunOnce = [
  'test/daemon-*.test.ts',
  'test/sandbox-*.test.ts',
  'test/import-boundaries.test.ts',
  'test/docs-*.test.ts',
  'test/sessions-faults*.test.ts',
  'test/sessions-docker-*engine-restart.test.ts',
  'test/browser-dashboards.test.ts',
  'test/browser-change-requests.test.ts',
  'test/browser-page-fixes.test.ts',
  'test/browser-sessions.test.ts',
  'test/browser-settings.test.ts',
  'test/browser-triggers.test.ts',
  'test/render-fairness.test.ts',
  'test/threads.test.ts',
  'test/serve.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker process runs file after file without loading svc's modules again for each: on this CPU-bound
    // two-core machine the PostgreSQL pass spent 163 s of its 579 importing them (19 s of 495 after). Files
    // that change process-wide state (DOCKER_HOST, PATH, HOME) put it back when they end.
    isolate: false,
    // The files mostly wait on child processes (git, the agent runtime, sandboxes, Chromium), so two run at
    // once even on two cores, where vitest's default (cores − 1) would run one: on a loaded machine the
    // SQLite pass took 17 minutes where its files' own times add up to 22, with no failure.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    globalSetup: ['test/support/global-setup.ts', 'test/support/build-once.ts'],
    // Files: the few longest first, the rest shuffled by the seed (test/support/longest-first-sequencer.ts).
    sequence: { shuffle: { files: false, tests: true }, sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'once', include: ['src/**/*.test.ts', ...testsRunOnce] } },
      { extends: true, test: { name: 'database', include: ['test/**/*.test.ts'], exclude: testsRunOnce } },
    ],
  },
});
