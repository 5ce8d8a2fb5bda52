import { defineConfig } from 'vitest/config';

/**
 * Two projects: `database` holds every test that talks to SQLite or PostgreSQL (CI runs it once per
 * database); `unit` holds the rest (schemas, renderers, the git door, the in-sandbox daemon, the sandbox providers, SQLite's own checkpointer and group commit), which run
 * once. `npm test` runs both.
 */
const daemonTests = 'test/daemon-*.test.ts';
/** The sandbox providers' conformance suite: about providers, not databases, so it runs once. */
const sandboxTests = 'test/sandbox-*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', daemonTests, sandboxTests] } },
      { extends: true, test: { name: 'database', include: ['test/**/*.test.ts'], exclude: [daemonTests, sandboxTests] } },
    ],
  },
});
