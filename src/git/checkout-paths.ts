/**
 * What may be written into a real directory (a working tree, a materialized copy), whatever
 * tree it comes from — fetched or made locally with plain git: git's verify_path with
 * core.protectNTFS and core.protectHFS on, judged per path component by tree-names.ts (the one
 * place those rules live), and, on a file system that folds case, no two paths that would land
 * on the same file (a symlink `S` beside `s/x` would make the write of `s/x` go through the link).
 * Checked for the whole tree before the first file is written. Pure, except the probe.
 */
import { ForgeError } from '../errors';
import { errnoCode, joinPath, type GitFs } from './fs';
import { symlinkNameProblem, treeNameProblem } from './tree-names';

export interface CheckoutEntry {
  path: string;
  /** The tree mode (symlinks have extra rules: `.gitmodules` may not be one). */
  mode: string;
}

export interface UnsafePath {
  path: string;
  problem: string;
  /** The path it collides with, for a case collision. */
  other?: string;
}

/** Why this path may not be checked out (a component git refuses), or null. */
export function checkoutPathProblem(path: string, mode: string): string | null {
  const parts = path.split('/');
  for (const part of parts) {
    const problem = treeNameProblem(part);
    if (problem !== null) return problem;
  }
  if (mode === '120000') return symlinkNameProblem(parts[parts.length - 1]!);
  return null;
}

/** How a case-folding file system (NTFS, APFS, HFS+) names a path: case and Unicode composition folded. */
function folded(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/** The first path that may not be written, or null. */
export function findUnsafePath(entries: Iterable<CheckoutEntry>, caseInsensitive: boolean): UnsafePath | null {
  const seen = new Map<string, string>();
  const claim = (path: string): UnsafePath | null => {
    const key = folded(path);
    const other = seen.get(key);
    if (other === undefined) seen.set(key, path);
    else if (other !== path) return { path, problem: 'case-collision', other };
    return null;
  };
  for (const { path, mode } of entries) {
    const problem = checkoutPathProblem(path, mode);
    if (problem !== null) return { path, problem };
    if (!caseInsensitive) continue;
    // Each directory on the way is claimed too: `S` (a file) and `s/x` collide at `s`.
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      const collision = claim(path.slice(0, slash));
      if (collision !== null) return collision;
    }
    const collision = claim(path);
    if (collision !== null) return collision;
  }
  return null;
}

export function unsafePathError(unsafe: UnsafePath, target: string): ForgeError {
  const why =
    unsafe.problem === 'case-collision'
      ? `it collides with ${JSON.stringify(unsafe.other)} on this case-insensitive file system`
      : `git refuses to check out such a path (${unsafe.problem})`;
  return new ForgeError('UNSAFE_PATH', `Refusing to write ${JSON.stringify(unsafe.path)} into ${target}: ${why}. Nothing was written.`, {
    data: { path: unsafe.path, problem: unsafe.problem, ...(unsafe.other !== undefined ? { other: unsafe.other } : {}) },
    hint: 'The tree holds a path that would write into .git, outside the directory, or over another file. Do not check it out; remove the entry from the history (with git) first.',
  });
}

/** Throws UNSAFE_PATH for the first path of the tree that may not be written into `target`. */
export function assertCheckoutSafe(entries: Iterable<CheckoutEntry>, caseInsensitive: boolean, target: string): void {
  const unsafe = findUnsafePath(entries, caseInsensitive);
  if (unsafe !== null) throw unsafePathError(unsafe, target);
}

/**
 * Whether the file system at `dir` (an existing directory) folds case, as git probes at init
 * (core.ignoreCase): a file is created and looked up by another case.
 */
export async function foldsCase(fs: GitFs, dir: string): Promise<boolean> {
  const name = `.forge-case-probe-${Math.random().toString(36).slice(2, 10)}`;
  const probe = joinPath(dir, name);
  await fs.promises.writeFile(probe, '');
  try {
    await fs.promises.stat(joinPath(dir, name.toUpperCase()));
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  } finally {
    await fs.promises.unlink(probe).catch(() => undefined);
  }
}
