/**
 * Branches checked out in a working tree. The engine never touches a working tree, with one
 * exception: when a merge or rebase moves the branch checked out in the repository's own
 * non-bare working tree, the index and the changed files are brought along so that `git status`
 * stays clean. Doing that needs the real file system, so it is an adapter (`WorktreeSync`,
 * implemented for Node in node/worktree-sync.ts) passed in by the caller.
 */
import { ForgeError } from '../errors';
import { errnoCode, joinPath, type Repository, type Signature } from '../git';

export interface Checkout {
  /** The working directory. */
  workdir: string;
  /** Its git directory (where HEAD and index live). */
  gitdir: string;
}

export interface WorktreeTransaction {
  /** Writes the files that differ between the old and the new tree, and the new index (still locked). */
  apply(newTree: string): Promise<void>;
  /** Publishes the new index and releases the lock. */
  commit(): Promise<void>;
  /** Puts back the files of the old tree (if apply ran) and releases the lock, leaving the index as it was. */
  rollback(): Promise<void>;
}

export interface WorktreeSync {
  /**
   * Locks the index (index.lock) and checks that the index and the working tree match `headTree`
   * exactly (no staged or unstaged change). Throws WORKTREE_DIRTY otherwise, changing nothing.
   */
  begin(repo: Repository, checkout: Checkout, headTree: string): Promise<WorktreeTransaction>;
}

async function readHead(repo: Repository, gitdir: string): Promise<string | null> {
  try {
    const text = (await repo.fs.promises.readFile(joinPath(gitdir, 'HEAD'), 'utf8')).trim();
    return text.startsWith('ref:') ? text.slice(4).trim() : null;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Where `ref` is checked out: the repository's own working tree (returned), or another worktree
 * of it (BRANCH_CHECKED_OUT_ELSEWHERE, since that tree would be left behind). null: nowhere.
 */
export async function findCheckout(repo: Repository, ref: string): Promise<Checkout | null> {
  if (repo.workdir !== null && (await readHead(repo, repo.gitdir)) === ref) return { workdir: repo.workdir, gitdir: repo.gitdir };
  const others: string[] = [];
  if (repo.gitdir !== repo.commonDir && (await repo.config.getBool('core.bare')) !== true) others.push(repo.commonDir);
  let names: string[] = [];
  try {
    names = await repo.fs.promises.readdir(joinPath(repo.commonDir, 'worktrees'));
  } catch {
    names = [];
  }
  for (const name of names) others.push(joinPath(repo.commonDir, 'worktrees', name));
  for (const gitdir of others) {
    if (gitdir === repo.gitdir) continue;
    if ((await readHead(repo, gitdir)) === ref) {
      throw new ForgeError('BRANCH_CHECKED_OUT_ELSEWHERE', `${ref} is checked out in another working tree (${gitdir}); moving it would leave that tree behind.`, {
        data: { ref, gitdir },
        hint: 'Run forge from that working tree, or switch it to another branch first.',
      });
    }
  }
  return null;
}

export interface BranchMove {
  ref: string;
  expectedOid: string;
  newOid: string;
  reflogMessage: string;
  committer: Signature;
}

/**
 * Moves a branch by compare-and-swap; when the branch is checked out here, first checks the
 * working tree is clean (before any work, through `prepare`), then updates files and index
 * around the ref move, putting the files back if the move fails.
 */
export class BranchUpdate {
  private constructor(
    private readonly repo: Repository,
    private readonly transaction: WorktreeTransaction | null,
  ) {}

  /** Call before computing anything: refuses a dirty checkout up front. */
  static async prepare(repo: Repository, ref: string, headOid: string, sync: WorktreeSync | undefined): Promise<BranchUpdate> {
    const checkout = await findCheckout(repo, ref);
    if (checkout === null) return new BranchUpdate(repo, null);
    if (sync === undefined) {
      throw new ForgeError('WORKTREE_SYNC_UNAVAILABLE', `${ref} is checked out in ${checkout.workdir}, and no working-tree adapter was given to update it.`, {
        data: { ref, workdir: checkout.workdir },
        hint: 'Pass the Node working-tree adapter (nodeWorktreeSync), or switch the working tree to another branch.',
      });
    }
    const headTree = (await repo.readCommit(headOid)).tree;
    return new BranchUpdate(repo, await sync.begin(repo, checkout, headTree));
  }

  get updatesWorktree(): boolean {
    return this.transaction !== null;
  }

  async move(move: BranchMove, newTree: string): Promise<void> {
    const tx = this.transaction;
    if (tx !== null) {
      try {
        await tx.apply(newTree);
      } catch (error) {
        await tx.rollback();
        throw error;
      }
    }
    try {
      await this.repo.refs.update(move);
    } catch (error) {
      if (tx !== null) await tx.rollback();
      throw error;
    }
    if (tx !== null) await tx.commit();
  }

  /** Releases the index lock without changing anything (nothing to move, or a failure before the move). */
  async abandon(): Promise<void> {
    if (this.transaction !== null) await this.transaction.rollback();
  }
}
