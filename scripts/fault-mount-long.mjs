#!/usr/bin/env node
/**
 * The long mount crash run (issue 27): the suite's mount crash test with 100 kills instead of
 * CI's 3. `npm run fault:mount [-- KILLS SEED]`, e.g. `-- 100 7`. Each round mounts the session
 * with `forge mount` (cleaning the mount point the last kill left stale), checks that every file
 * the last round closed is in the session, starts a writer that writes and closes files, and
 * SIGKILLs the mount at a seeded random moment; `git fsck --strict` after each kill.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [kills = '100', seed = '1'] = process.argv.slice(2);
const result = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', 'test/integration/mount-crash.test.ts'], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, FORGE_REQUIRE_FUSE: '1', FORGE_MOUNT_KILLS: kills, FORGE_MOUNT_SEED: seed },
});
process.exit(result.status ?? 1);
