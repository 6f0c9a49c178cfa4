import { defineConfig } from 'vitest/config';

// Two groups, one after the other. Most files run two at a time (one per core). The fault and
// lifecycle files kill and restart servers, PostgreSQL and the Deno runtime and bound how long
// recovery may take: they run afterwards, one at a time, so another file's load cannot push a
// recovery past its bound.
const SERIAL = ['test/fault/**/*.test.ts', 'test/integration/lifecycle/**/*.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/harness/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 90_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: ['test/**/*.test.ts'],
          exclude: SERIAL,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'serial',
          include: SERIAL,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
