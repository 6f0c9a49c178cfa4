import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/harness/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: true,
    // Vitest runs cores - 1 files at once (one on two cores); test files mostly wait on their
    // servers, PostgreSQL and Chromium, so one file per core keeps both busy.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
