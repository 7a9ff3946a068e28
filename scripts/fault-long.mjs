#!/usr/bin/env node
/**
 * The long crash/fault run (issue "Safe among others"): the suite's fault-injection test with
 * more rounds and seeds than CI runs. `npm run fault:long [-- ROUNDS SEEDS]`, e.g. `-- 60 1,2,3`.
 * Each round SIGKILLs `forge mcp` / `forge turn` at random moments beside `git gc --prune=now`.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [rounds = '40', seeds = '1,2,3,4,5,6,7,8'] = process.argv.slice(2);
const result = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/integration/fault-injection.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FORGE_FAULT_ROUNDS: rounds, FORGE_FAULT_SEEDS: seeds },
});
process.exit(result.status ?? 1);
