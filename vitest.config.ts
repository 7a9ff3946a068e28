import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker less than the cores: ONE worker on a 2-core machine, so the
    // files ran one at a time. Much of a test's time is spent waiting on child processes (git,
    // the CLI), so every core gets a worker. Tests are parallel-safe: each writes only to its own
    // mkdtemp directories (test/helpers/temp.ts) and servers listen on port 0.
    maxWorkers: Math.max(2, availableParallelism()),
    globalSetup: ['test/global-setup.ts'],
  },
});
