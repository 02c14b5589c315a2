import { defineConfig } from 'vitest/config';

/**
 * Two projects. `hostile` is the hostile-workspace test: it measures how fast the daemon answers
 * while it builds 5,000 transcripts, so on a 2-core machine it runs after the rest of the suite,
 * not beside it (`npm test` runs the projects one after the other).
 */
const HOSTILE = 'test/integration/hostile-workspace.test.ts';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: [HOSTILE] } },
      { extends: true, test: { name: 'hostile', include: [HOSTILE] } },
    ],
  },
});
