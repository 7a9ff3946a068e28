/**
 * Waiting out a running `git gc`. A gc decides what is reachable when it starts and prunes the
 * rest, so with `--prune=now` an object written while it runs, and reached by a ref only after
 * its walk, is deleted — a branch or the pending pin could then name a missing object. git gc
 * holds `gc.pid` ("<pid> <host>") in the common directory for its whole run; after moving a ref,
 * the engine waits until no gc that may predate the move is running, then checks its recent
 * objects and writes again any that were pruned (ObjectStore.settle). A gc that starts later
 * sees the ref.
 */
import type { GitFs } from './fs';
import { joinPath } from './fs';
import type { ProcessInfo } from './platform';

/** git's own rule: a gc.pid older than this is stale (builtin/gc.c). */
const STALE_AFTER_MS = 12 * 3600 * 1000;
/** A gc of a very large repository takes minutes; past this, go on and check the objects anyway. */
const MAX_WAIT_MS = 10 * 60 * 1000;
const POLL_MS = 25;

/** Waits while a gc runs (at most MAX_WAIT_MS); whether one was running. */
export async function waitForRunningGc(fs: GitFs, commonDir: string, processInfo: ProcessInfo | undefined, now: () => number = Date.now): Promise<boolean> {
  const started = now();
  let waited = false;
  while (now() - started < MAX_WAIT_MS) {
    if (!(await isGcRunning(fs, commonDir, processInfo, now))) return waited;
    waited = true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return waited;
}

/** Whether `gc.pid` names a gc that may be running (not a stale file, not a gone process of this host). */
export async function isGcRunning(fs: GitFs, commonDir: string, processInfo: ProcessInfo | undefined, now: () => number = Date.now): Promise<boolean> {
  const path = joinPath(commonDir, 'gc.pid');
  let text: string;
  let mtime: number;
  try {
    const stat = await fs.promises.stat(path);
    mtime = stat.mtimeMs ?? now();
    text = String(await fs.promises.readFile(path, 'utf8'));
  } catch {
    return false; // no gc running
  }
  if (now() - mtime > STALE_AFTER_MS) return false;
  const [pid, host] = text.trim().split(/\s+/);
  // A gc of this host that is gone left its file behind (killed): nothing to wait for.
  return !(processInfo !== undefined && host === processInfo.host && processInfo.isAlive(Number(pid)) === false);
}
