import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Two projects: `database` holds every test that talks to SQLite or PostgreSQL (CI runs it once per
 * database); `unit` holds the rest (schemas, renderers, the git door, the in-sandbox daemon, the sandbox providers, SQLite's own checkpointer and group commit), which run
 * once. `npm test` runs both.
 *
 * Files and the tests within each file run in a random order (the seed is printed; `--sequence.seed=N`
 * repeats an order), so a test that needs another to run first fails here rather than by chance in CI.
 * dist/ is built before any test runs, so tests that spawn the bin/ programs never run a stale build.
 */
/** Tests under test/ that need no database: the in-sandbox daemon, the sandbox providers' conformance suite, the import boundaries, the documentation. */
const testsWithoutDatabase = ['test/daemon-*.test.ts', 'test/sandbox-*.test.ts', 'test/import-boundaries.test.ts', 'test/docs-*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The files mostly wait on child processes (git, the agent runtime, sandboxes, Chromium), so two run at
    // once even on two cores, where vitest's default (cores − 1) would run one: on a loaded machine the
    // SQLite pass took 17 minutes where its files' own times add up to 22, with no failure.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    globalSetup: ['test/support/global-setup.ts', 'test/support/build-once.ts'],
    sequence: { shuffle: { files: true, tests: true } },
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', ...testsWithoutDatabase] } },
      { extends: true, test: { name: 'database', include: ['test/**/*.test.ts'], exclude: testsWithoutDatabase } },
    ],
  },
});
