import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real HTTP servers on loopback; keep files isolated but bounded to the 2 cores we have.
    pool: 'forks',
    testTimeout: 15_000,
  },
});
