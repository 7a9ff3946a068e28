/**
 * Which working trees of a repository have a branch checked out (their HEAD names it): the
 * repository's own (unless bare) and its linked worktrees. git refuses to move such a branch
 * behind the working tree's back (`git branch -f`: "cannot force update the branch used by
 * worktree"), since `git status` would then show the move reversed as staged changes.
 */
import { errnoCode, joinPath } from './fs';
import type { Repository } from './repository';

async function headOf(repo: Repository, gitdir: string): Promise<string | null> {
  try {
    const text = (await repo.fs.promises.readFile(joinPath(gitdir, 'HEAD'), 'utf8')).trim();
    return text.startsWith('ref:') ? text.slice(4).trim() : null;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}

/** The git directories whose working tree has `ref` checked out (empty: none). */
export async function gitdirsWithCheckout(repo: Repository, ref: string): Promise<string[]> {
  const candidates: string[] = [];
  if ((await repo.config.getBool('core.bare')) !== true) candidates.push(repo.commonDir);
  let names: string[] = [];
  try {
    names = await repo.fs.promises.readdir(joinPath(repo.commonDir, 'worktrees'));
  } catch {
    names = [];
  }
  for (const name of names) candidates.push(joinPath(repo.commonDir, 'worktrees', name));
  const out: string[] = [];
  for (const gitdir of candidates) if ((await headOf(repo, gitdir)) === ref) out.push(gitdir);
  return out;
}
