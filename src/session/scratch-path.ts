/**
 * Where a session's scratch directory is (the mount's ignored paths: node_modules/, dist/), and its
 * removal with the session: `forge session discard` returns the session to its branch head, the
 * scratch directory included; a session whose branch was deleted loses its scratch directory at
 * the next discard or mount in the repository (pruneScratch).
 */
import { errnoCode, joinPath, type GitFs } from '../git';
import { SESSION_REF_PREFIX } from './ids';

export function sessionScratchDir(commonDir: string, sessionId: string): string {
  return joinPath(commonDir, 'forge', 'scratch', sessionId);
}

/** Removes a session's scratch directory; false when it had none. */
export async function removeSessionScratch(fs: GitFs, commonDir: string, sessionId: string): Promise<boolean> {
  const dir = sessionScratchDir(commonDir, sessionId);
  try {
    await fs.promises.lstat(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
  await removeTree(fs, dir);
  return true;
}

/** Removes the scratch directories of sessions that no longer exist (their branch was deleted); returns their ids. */
export async function pruneScratch(fs: GitFs, commonDir: string, sessionIds: ReadonlySet<string>): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(joinPath(commonDir, 'forge', 'scratch'));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  const gone = names.filter((name) => !sessionIds.has(name));
  for (const id of gone) await removeTree(fs, sessionScratchDir(commonDir, id));
  return gone;
}

export async function sessionIdsOf(refs: { list(prefix: string): Promise<Array<{ ref: string }>> }): Promise<Set<string>> {
  return new Set((await refs.list(SESSION_REF_PREFIX)).map(({ ref }) => ref.slice(SESSION_REF_PREFIX.length)));
}

/** rm -rf: node's fs.rm where there is one (fast, one call), else entry by entry (any GitFs). */
async function removeTree(fs: GitFs, path: string): Promise<void> {
  const rm = (fs.promises as { rm?: (path: string, options: { recursive: boolean; force: boolean }) => Promise<void> }).rm;
  if (typeof rm === 'function') return rm.call(fs.promises, path, { recursive: true, force: true });
  const stat = await fs.promises.lstat(path);
  if (stat.isDirectory()) {
    for (const name of await fs.promises.readdir(path)) await removeTree(fs, joinPath(path, name));
    await fs.promises.rmdir(path);
  } else {
    await fs.promises.unlink(path);
  }
}
