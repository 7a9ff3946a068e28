/**
 * What the engine needs from a file system that not every supported one gives as asked:
 *
 * - `mkdirp`: lightning-fs's `mkdir` ignores `{recursive: true}` (a missing parent is ENOENT, an
 *   existing directory EEXIST); node's fs and memfs honour it, and are asked that way first.
 * - `createExclusive`: git's `O_CREAT|O_EXCL` lock files. lightning-fs ignores `{flag: 'wx'}` and
 *   would overwrite another writer's lock. The creation is therefore always checked first under
 *   a lock on the path: the Web Locks API where there is one (browsers: it serializes every tab
 *   and worker of the origin), otherwise a promise chain per fs and path (one page or process).
 *   The `wx` flag is still passed, so node's fs and memfs keep the kernel's exclusivity across
 *   processes. What this cannot guarantee: on an fs that ignores `wx`, a writer that does not go
 *   through this function (another library, or another origin's copy of the engine) is not
 *   excluded; and lightning-fs keeps its directory tree in each tab's memory, so two tabs see
 *   each other's files only after a reload whatever the locking.
 * - `flushWrites`: what the engine reports done is on storage. lightning-fs writes a file's bytes
 *   to IndexedDB at once but its directory tree (which names them) only 500 ms after the last
 *   write, so a tab closed or reloaded right after a commit lost it; `flush()` saves it now.
 */
import { dirname, errnoCode, type GitFs } from './fs';

/**
 * `mkdir -p`: creates the directory and its missing parents; an existing directory is fine, a
 * file in the way is EEXIST (at the path) or ENOTDIR (above it), as node's fs says. Checked
 * afterwards with two stats, since memfs's recursive mkdir accepts an existing file and
 * lightning-fs creates a directory below a file.
 */
export async function mkdirp(fs: GitFs, path: string): Promise<void> {
  try {
    await fs.promises.mkdir(path, { recursive: true });
  } catch (error) {
    const code = errnoCode(error);
    const parent = dirname(path);
    if (code !== 'EEXIST' && (code !== 'ENOENT' || parent === path)) throw error;
    if (code === 'ENOENT') {
      // An fs without recursive mkdir: the parents first, then this one.
      await mkdirp(fs, parent);
      try {
        await fs.promises.mkdir(path);
      } catch (again) {
        if (errnoCode(again) !== 'EEXIST') throw again;
      }
    }
  }
  await assertDirectory(fs, path, 'EEXIST');
  if (dirname(path) !== path) {
    await assertDirectory(fs, dirname(path), 'ENOTDIR').catch(async (error: unknown) => {
      await fs.promises.rmdir(path).catch(() => undefined);
      throw error;
    });
  }
}

async function assertDirectory(fs: GitFs, path: string, code: 'EEXIST' | 'ENOTDIR'): Promise<void> {
  if (!(await fs.promises.stat(path)).isDirectory()) {
    throw Object.assign(new Error(`${code}: not a directory, mkdir '${path}'`), { code, path });
  }
}

/**
 * Makes everything written so far survive the process or tab, where the fs buffers it (its
 * `promises.flush()`, which lightning-fs has); node's fs and memfs have nothing to flush (as git
 * without core.fsync). Called at each point where the engine reports something done: a ref moved
 * (a turn commit, a session's start, the pending pin), a journal record, a lease taken or let go.
 */
export async function flushWrites(fs: GitFs): Promise<void> {
  await fs.promises.flush?.();
}

/**
 * Creates a file that must not exist yet; rejects with an EEXIST error (as `open(O_EXCL)` does)
 * if it does, whatever the fs does with the `wx` flag.
 *
 * In two steps, as git's lockfile.c does (open O_EXCL, then write through the descriptor): the
 * empty file is created exclusively, then filled. A fill that fails (ENOSPC, EDQUOT, EIO) leaves
 * a file this call created, which is removed before the error goes on: a `.lock` left empty by
 * a full disk would refuse every later update (REF_LOCKED) after the space is freed. A failed
 * creation removes nothing: the file, if any, is another writer's.
 */
export async function createExclusive(fs: GitFs, path: string, data: Uint8Array | string): Promise<void> {
  await withPathLock(fs, path, async () => {
    if (await exists(fs, path)) throw existsError(path);
    await fs.promises.writeFile(path, '', { flag: 'wx' });
    if (data.length === 0) return;
    try {
      await fs.promises.writeFile(path, data);
    } catch (error) {
      await fs.promises.unlink(path).catch(() => undefined);
      throw error;
    }
  });
}

async function exists(fs: GitFs, path: string): Promise<boolean> {
  try {
    await fs.promises.lstat(path);
    return true;
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

function existsError(path: string): Error {
  return Object.assign(new Error(`EEXIST: file already exists, open '${path}'`), { code: 'EEXIST', path });
}

interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

function webLocks(): LockManagerLike | null {
  const locks = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator?.locks;
  return locks && typeof locks.request === 'function' ? locks : null;
}

/** The last operation queued on each path of each fs: later ones wait for it. */
const tails = new WeakMap<object, Map<string, Promise<unknown>>>();

function withPathLock<T>(fs: GitFs, path: string, run: () => Promise<T>): Promise<T> {
  const locks = webLocks();
  if (locks !== null) return locks.request(`forge-engine:create:${path}`, run);
  let perFs = tails.get(fs);
  if (perFs === undefined) tails.set(fs, (perFs = new Map()));
  const previous = perFs.get(path) ?? Promise.resolve();
  const result = previous.then(run, run);
  const tail = result.catch(() => undefined);
  perFs.set(path, tail);
  void tail.then(() => {
    if (perFs.get(path) === tail) perFs.delete(path);
  });
  return result;
}
