/**
 * The view's .gitignore files as one predicate, each file applying below its directory (git's
 * per-directory rules). run_command uses it to leave ignored output behind, the mount to send
 * ignored paths to its scratch directory: one rule for both.
 */
import ignore, { type Ignore } from 'ignore';
import type { Vfs, VfsEntry } from '../vfs/types';

export type IgnoredPredicate = (path: string, isDir: boolean) => boolean;

export function isGitignorePath(path: string): boolean {
  return path === '.gitignore' || path.endsWith('/.gitignore');
}

/** Rules from the .gitignore files among `entries` (a walk of the view), read through `view`. */
export async function gitignoreRules(view: Vfs, entries: readonly VfsEntry[]): Promise<IgnoredPredicate> {
  const rules: Array<{ dir: string; matcher: Ignore }> = [];
  for (const entry of entries) {
    if (entry.type !== 'file' || !isGitignorePath(entry.path)) continue;
    const dir = entry.path === '.gitignore' ? '' : entry.path.slice(0, -'/.gitignore'.length);
    rules.push({ dir, matcher: ignore().add(new TextDecoder().decode(await view.readFile(entry.path))) });
  }
  return (path, isDir) =>
    rules.some(({ dir, matcher }) => {
      if (dir !== '' && !path.startsWith(`${dir}/`)) return false;
      const rel = dir === '' ? path : path.slice(dir.length + 1);
      return matcher.ignores(isDir ? `${rel}/` : rel);
    });
}
