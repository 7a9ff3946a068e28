#!/usr/bin/env node
/**
 * The long run of the batch-pin fault test (issue 30, 3): a `forge turn` of 1,000 writes,
 * SIGKILLed at random points while `git gc --prune=now` runs in a loop beside it; after each kill
 * `git fsck --strict` is clean, the session opens and commits, and what the gc took is named and
 * dropped. `node scripts/fault-batch-pin.mjs [KILLS=40] [SEED=30]` (the suite runs 3 kills).
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [kills = '40', seed = '30'] = process.argv.slice(2);
const result = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/integration/batch-pin-faults.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FORGE_BATCH_PIN_KILLS: kills, FORGE_BATCH_PIN_SEED: seed },
});
process.exit(result.status ?? 1);
