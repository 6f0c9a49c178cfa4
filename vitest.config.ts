import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/harness/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
