/**
 * Writes a view (base + pending) into a real directory, for running tests and commands.
 * Regular files get 0644 or 0755, symlinks are created as symlinks, submodules become empty
 * directories (as `git checkout` leaves an uninitialized submodule).
 */
import { ForgeError } from '../errors';
import { errnoCode, joinPath, mkdirp, type GitFs } from '../git';
import { assertCheckoutSafe, foldsCase } from '../git/checkout-paths';
import type { Vfs } from './types';

export interface MaterializeResult {
  files: number;
  bytes: number;
}

/**
 * Refuses a non-empty target: materializing over existing files would mix two trees. Refuses,
 * before writing anything, a tree with a path git would not check out (`.git` in any spelling,
 * `..`) or, where the target folds case, two paths that land on one file (UNSAFE_PATH).
 */
export async function materialize(view: Vfs, fs: GitFs, targetDir: string): Promise<MaterializeResult> {
  let created = false;
  const existing = await fs.promises.readdir(targetDir).catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT') {
      created = true;
      return [];
    }
    throw error;
  });
  if (existing.length > 0) {
    throw new ForgeError('INVALID_ARGUMENT', `Cannot materialize into ${targetDir}: the directory is not empty.`, { data: { path: targetDir } });
  }
  const entries = await view.walk('');
  await mkdirp(fs, targetDir);
  try {
    assertCheckoutSafe(entries, await foldsCase(fs, targetDir), targetDir);
  } catch (error) {
    if (created) await fs.promises.rmdir(targetDir).catch(() => undefined);
    throw error;
  }
  const made = new Set<string>();
  const ensureDir = async (dir: string) => {
    if (dir === '' || made.has(dir)) return;
    await mkdirp(fs, joinPath(targetDir, dir));
    made.add(dir);
  };
  let bytes = 0;
  for (const entry of entries) {
    const slash = entry.path.lastIndexOf('/');
    await ensureDir(slash < 0 ? '' : entry.path.slice(0, slash));
    const target = joinPath(targetDir, entry.path);
    if (entry.type === 'submodule') {
      await ensureDir(entry.path);
      continue;
    }
    const content = await view.readFile(entry.path);
    bytes += content.length;
    if (entry.type === 'symlink') {
      await fs.promises.symlink(new TextDecoder().decode(content), target);
    } else {
      await fs.promises.writeFile(target, content, { mode: entry.mode === '100755' ? 0o755 : 0o644 });
      // writeFile's mode applies only when it creates the file and is masked by the umask.
      if (fs.promises.chmod) await fs.promises.chmod(target, entry.mode === '100755' ? 0o755 : 0o644);
    }
  }
  return { files: entries.length, bytes };
}
