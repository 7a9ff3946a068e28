/**
 * Keeps a session's pending blobs reachable for git's gc. Pending blobs are loose objects that
 * no commit references yet, so `git gc --prune=now` (or any gc once they are older than
 * gc.pruneExpire) would delete them under a journal that still names them. As git's stash and
 * jj's working-copy commit do, a ref holds them: `refs/forge/pending/<session>` points at a
 * commit (parent: the pending layer's base) whose tree lists every blob written since the last
 * turn commit, by oid (`ab/cdef…`). Overwritten blobs stay listed: the undo entry may name them.
 * Adding a blob rewrites two small trees (its fan-out directory and the root), a commit and the
 * ref; after the turn commit (or a discard) the ref is deleted.
 */
import { isForgeError } from '../errors';
import { DEFAULT_IDENTITY, joinPath, ZERO_OID, type Repository, type Signature, type TreeEntry } from '../git';

export const PENDING_REF_PREFIX = 'refs/forge/pending/';
const OID = /^[0-9a-f]{40}$/;
/** Older than any live update of the ref (ours or git's pack-refs) could keep its lock. */
const STALE_LOCK_MS = 2000;

export class PendingPin {
  /** fan-out directory -> names (the oid's last 38 hex digits) of the blobs pinned in it. */
  private readonly fans = new Map<string, Set<string>>();
  private readonly fanTrees = new Map<string, string>();
  /** The ref's value as we last wrote it; undefined: not known yet. */
  private value: string | null | undefined;
  private pinnedBase: string | null = null;

  constructor(
    private readonly repo: Repository,
    readonly ref: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  has(oid: string): boolean {
    return this.fans.get(oid.slice(0, 2))?.has(oid.slice(2)) ?? false;
  }

  /** Makes the blobs reachable from the pending ref (a no-op when all already are). */
  async pin(oids: Iterable<string>, base: string): Promise<void> {
    const touched = new Set<string>();
    for (const oid of oids) {
      if (!OID.test(oid) || this.has(oid)) continue;
      const fan = oid.slice(0, 2);
      let names = this.fans.get(fan);
      if (names === undefined) this.fans.set(fan, (names = new Set()));
      names.add(oid.slice(2));
      touched.add(fan);
    }
    if (touched.size === 0 && base === this.pinnedBase) return;
    for (const fan of touched) {
      const entries: TreeEntry[] = [...this.fans.get(fan)!].sort().map((name) => ({ mode: '100644', name, oid: fan + name }));
      this.fanTrees.set(fan, await this.repo.writeTree(entries));
    }
    const root: TreeEntry[] = [...this.fanTrees].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, oid]) => ({ mode: '040000', name, oid }));
    const who: Signature = { ...DEFAULT_IDENTITY, timestamp: Math.floor(this.now().getTime() / 1000), timezoneOffset: 0 };
    const commit = await this.repo.writeCommit({
      tree: await this.repo.writeTree(root),
      parents: OID.test(base) ? [base] : [],
      author: who,
      committer: who,
      message: `forge: pending changes (${this.ref.slice(PENDING_REF_PREFIX.length)})\n\nKeeps the session's uncommitted blobs reachable for git gc until its next turn commit.\n`,
    });
    await this.moveRef(commit, who);
    this.pinnedBase = base;
  }

  /** After a turn commit or a discard: nothing pending is left to keep. */
  async clear(): Promise<void> {
    this.fans.clear();
    this.fanTrees.clear();
    this.pinnedBase = null;
    if (this.value === null) return;
    try {
      await this.repo.refs.delete(this.ref);
    } catch (error) {
      if (!isForgeError(error, 'REF_LOCKED')) throw error;
      await this.breakStaleLock();
      await this.repo.refs.delete(this.ref);
    }
    this.value = null;
  }

  /**
   * A lock on this private ref can only be a killed writer's (the session's lease makes us its
   * one writer) or, for milliseconds, git's own pack-refs: once it is older than that, remove it.
   */
  private async breakStaleLock(): Promise<void> {
    const lock = joinPath(this.repo.commonDir, `${this.ref}.lock`);
    const stat = await this.repo.fs.promises.stat(lock).catch(() => null);
    if (stat === null) return;
    const age = Date.now() - (stat.mtimeMs ?? 0);
    if (age < STALE_LOCK_MS) await new Promise((resolve) => setTimeout(resolve, STALE_LOCK_MS - age));
    await this.repo.fs.promises.unlink(lock).catch(() => undefined);
  }

  private async moveRef(commit: string, who: Signature): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const expected = this.value ?? (await this.repo.refs.resolve(this.ref)) ?? ZERO_OID;
      try {
        await this.repo.refs.update({ ref: this.ref, newOid: commit, expectedOid: expected, committer: who, reflogMessage: 'forge: pending' });
        this.value = commit;
        return;
      } catch (error) {
        if (attempt > 0) throw error;
        if (isForgeError(error, 'REF_LOCKED')) await this.breakStaleLock();
        // Left by an earlier process of this session (the lease says we are its writer now).
        else if (isForgeError(error, 'REF_CAS_FAILED')) this.value = undefined;
        else throw error;
      }
    }
  }
}
