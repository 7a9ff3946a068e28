/**
 * Keeps a session's pending blobs reachable for git's gc. Pending blobs are loose objects that
 * no commit references yet, so `git gc --prune=now` (or any gc once they are older than
 * gc.pruneExpire) would delete them under a journal that still names them. As git's stash and
 * jj's working-copy commit do, a ref holds them: `refs/forge/pending/<session>` points at a
 * tree listing every blob written since the last turn commit, by oid (`ab/cdef…`). Overwritten
 * blobs stay listed: the undo entry may name them. A tree, not a commit: git's commit-graph
 * lists every commit reachable when gc ran, and a pin commit dropped later by
 * `git repack -adf && git prune` would leave that file naming a missing commit (fsck fails).
 * Adding a blob rewrites two small trees (its fan-out directory and the root) and the ref;
 * after the turn commit (or a discard) the ref is deleted. Just before a batch's turn commit the
 * root also names the turn's tree (entry `turn`, see pinTree): it reaches every blob of the turn.
 */
import { isForgeError } from '../errors';
import { DEFAULT_IDENTITY, joinPath, ZERO_OID, type Repository, type Signature, type TreeEntry } from '../git';

export const PENDING_REF_PREFIX = 'refs/forge/pending/';
const OID = /^[0-9a-f]{40}$/;
/** The pin root's entry for a turn's tree (see pinTree). */
const TURN_ENTRY = 'turn';
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
    const touched = this.value === undefined ? await this.seed() : new Set<string>();
    for (const oid of oids) {
      if (!OID.test(oid) || this.has(oid)) continue;
      const fan = oid.slice(0, 2);
      let names = this.fans.get(fan);
      if (names === undefined) this.fans.set(fan, (names = new Set()));
      names.add(oid.slice(2));
      touched.add(fan);
    }
    if (touched.size === 0 && base === this.pinnedBase) return;
    await this.publish(touched, base);
  }

  /**
   * Keeps everything `tree` reaches, beside what the pin holds: a turn's own tree, just before
   * its branch moves onto it (it reaches every blob of the turn), is one more entry of the pin's
   * root (`turn`, not a fan-out name: seed and later pins skip it) instead of a fan-out tree
   * per 256 blobs. The next pin or repair writes the root without it.
   */
  async pinTree(tree: string, base: string): Promise<void> {
    const touched = this.value === undefined ? await this.seed() : new Set<string>();
    await this.publish(touched, base, { mode: '040000', name: TURN_ENTRY, oid: tree });
  }

  /**
   * After a `git prune` removed pinned objects (the pin then names a missing blob or tree, and
   * the user's `git gc` fails on it): keeps exactly `present` and what the pin holds that is
   * still on disk, and writes every tree of the pin again (a pruned one is written anew).
   */
  async repair(present: Iterable<string>, base: string): Promise<void> {
    if (this.value === undefined) await this.seed();
    const held = [...this.fans].flatMap(([fan, names]) => [...names].map((name) => fan + name));
    this.fans.clear();
    this.fanTrees.clear();
    for (const oid of held) if (await this.repo.objects.freshen(oid)) this.add(oid);
    for (const oid of present) if (OID.test(oid)) this.add(oid);
    await this.publish(new Set(this.fans.keys()), base);
  }

  private add(oid: string): void {
    let names = this.fans.get(oid.slice(0, 2));
    if (names === undefined) this.fans.set(oid.slice(0, 2), (names = new Set()));
    names.add(oid.slice(2));
  }

  /** Writes the touched fan-out trees and the root, and moves the ref to it. */
  private async publish(touched: ReadonlySet<string>, base: string, extra?: TreeEntry): Promise<void> {
    for (const fan of touched) {
      const entries: TreeEntry[] = [...this.fans.get(fan)!].sort().map((name) => ({ mode: '100644', name, oid: fan + name }));
      this.fanTrees.set(fan, await this.repo.writeTree(entries, { cache: false }));
    }
    const root: TreeEntry[] = [...this.fanTrees].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, oid]) => ({ mode: '040000', name, oid }));
    if (extra) root.push(extra); // "turn" sorts after every two-hex-digit name
    const tree = await this.repo.writeTree(root, { cache: false });
    if (tree !== this.value) {
      const who: Signature = { ...DEFAULT_IDENTITY, timestamp: Math.floor(this.now().getTime() / 1000), timezoneOffset: 0 };
      await this.moveRef(tree, who);
    }
    this.pinnedBase = base;
  }

  /**
   * The ref as an earlier process of this session left it (a restart, a takeover): what it kept
   * stays kept, e.g. the blob an undo entry restores that the pending set no longer names. Blobs
   * gone meanwhile are left out. Returns the fan-out directories to write again.
   */
  private async seed(): Promise<Set<string>> {
    const seeded = new Set<string>();
    const tip = await this.repo.refs.resolve(this.ref);
    this.value = tip;
    if (tip === null) return seeded;
    try {
      // A tree; a commit whose tree it is from forge versions that pinned with commits.
      const root = (await this.repo.objects.read(tip)).type === 'commit' ? (await this.repo.readCommit(tip)).tree : tip;
      for (const fan of await this.repo.readTree(root)) {
        if (fan.mode !== '040000' || fan.name === TURN_ENTRY) continue;
        for (const entry of await this.repo.readTree(fan.oid)) {
          const oid = fan.name + entry.name;
          if (!OID.test(oid) || this.has(oid) || !(await this.repo.objects.freshen(oid))) continue;
          let names = this.fans.get(fan.name);
          if (names === undefined) this.fans.set(fan.name, (names = new Set()));
          names.add(entry.name);
          seeded.add(fan.name);
        }
      }
    } catch {
      // An unreadable pin (objects removed by hand) keeps nothing more than what is pending.
    }
    return seeded;
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

  private async moveRef(oid: string, who: Signature): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const expected = this.value ?? (await this.repo.refs.resolve(this.ref)) ?? ZERO_OID;
      try {
        await this.repo.refs.update({ ref: this.ref, newOid: oid, expectedOid: expected, committer: who, reflogMessage: 'forge: pending' });
        this.value = oid;
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
