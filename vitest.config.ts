import { defineConfig } from 'vitest/config';

/**
 * Two projects: `database` holds every test that talks to SQLite or PostgreSQL (CI runs it once per
 * database); `unit` holds the rest (schemas, renderers, the git door, the in-sandbox daemon, SQLite's own checkpointer and group commit), which run
 * once. `npm test` runs both.
 */
const daemonTests = 'test/daemon-*.test.ts';
/** Checks of the documentation: no database either. */
const docsTests = 'test/docs-*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts', daemonTests, docsTests] } },
      { extends: true, test: { name: 'database', include: ['test/**/*.test.ts'], exclude: [daemonTests, docsTests] } },
    ],
  },
});
