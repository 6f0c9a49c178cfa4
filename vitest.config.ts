import { defineConfig } from 'vitest/config';

// Two groups, one after the other. Most files run two at a time (one per core), each worker
// importing the app once for all its files (isolate: false): evaluating the app's module graph
// through vitest's module runner costs seconds per file, which, paid by every file, was most of
// the suite's time. Files share no state but what they start themselves (each its own database
// and servers, closed in afterAll); nothing in the suite mocks modules. The fault and lifecycle
// files kill and restart servers, PostgreSQL and the Deno runtime and bound how long recovery may
// take: they run afterwards, one at a time and isolated, so another file's load cannot push a
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
          isolate: false,
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
