import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real HTTP servers on loopback; keep files isolated but bounded to the 2 cores we have
    // (the default leaves one core unused: files would run one at a time). Engine timing runs on virtual
    // time, so two files side by side do not race each other's clocks.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 15_000,
  },
});
