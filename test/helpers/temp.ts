/**
 * Temporary directories for tests, always under os.tmpdir()/forge-test-*, always removed.
 *
 * Called inside a test (or a beforeEach), the directory is removed when that test finishes.
 * Called elsewhere (beforeAll, module scope), it is removed by cleanupTempDirs() (call it from
 * afterAll to free it early) or when the worker exits. Vitest ends its workers with SIGTERM, which
 * skips exit handlers, so each name carries the creating pid and the first makeTempDir() of a
 * process also sweeps directories whose process is gone.
 * Set FORGE_KEEP_TEMP=1 to keep everything (and sweep nothing) for debugging.
 */
import { mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** forge-test-<prefix>-p<pid>-XXXXXX, XXXXXX being mkdtemp's suffix. */
const OWNED_NAME = /^forge-test-.*-p(\d+)-[A-Za-z0-9]{6}$/;

const outsideTests = new Set<string>();
let swept = false;
let exitHookInstalled = false;

/** Creates a fresh empty directory named forge-test-<prefix>-p<pid>-XXXXXX; returns its real path. */
export function makeTempDir(prefix = 'tmp'): string {
  // realpath: on macOS os.tmpdir() is behind a symlink, and git prints resolved paths.
  const root = realpathSync(tmpdir());
  if (!swept) sweepOrphans(root);
  const safe = prefix.replace(/[^A-Za-z0-9._-]/g, '-');
  const dir = mkdtempSync(join(root, `forge-test-${safe}-p${process.pid}-`));
  try {
    onTestFinished(() => removeDir(dir));
  } catch {
    // Not inside a test: fall back to the process-level registry.
    outsideTests.add(dir);
    if (!exitHookInstalled) process.on('exit', cleanupTempDirs);
    exitHookInstalled = true;
  }
  return dir;
}

/** Removes every directory made outside a test so far. Safe to call more than once. */
export function cleanupTempDirs(): void {
  for (const dir of outsideTests) removeDir(dir);
  outsideTests.clear();
}

function removeDir(dir: string): void {
  if (process.env.FORGE_KEEP_TEMP === '1') return;
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Removes forge-test dirs left by processes that no longer exist (killed workers). */
function sweepOrphans(root: string): void {
  swept = true;
  if (process.env.FORGE_KEEP_TEMP === '1') return;
  for (const name of readdirSync(root)) {
    const pid = OWNED_NAME.exec(name)?.[1];
    if (pid === undefined || isAlive(Number(pid))) continue;
    try {
      removeDir(join(root, name));
    } catch {
      // Not ours to remove (another user's); leave it.
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
