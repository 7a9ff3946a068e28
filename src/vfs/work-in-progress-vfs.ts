/**
 * The writable layer over a commit view: pending writes (blob oid + mode) and deletions,
 * journaled as they happen. Every read sees base + pending. Blobs go to the object store as
 * they are written (content-addressed, harmless if never committed), so the pending set is
 * only `path -> {oid, mode} | deleted`. It behaves like a filesystem: no file below a file,
 * no file where a directory is, a directory exists while any file below it does.
 */
import { ForgeError } from '../errors';
import { bytesLength, type Bytes, type TreeEntry } from '../git';
import { CommitVfs, entryType } from './commit-vfs';
import { applyEntry, NullJournal, type Journal, type JournalContent, type JournalEntry, type JournalRecord } from './journal';
import type { PendingPin } from './pending-pin';
import { ancestorsOf, comparePaths, isUnder, nameOf, normalizePath, parentOf } from './paths';
import type { EntryMode, FileMode, PendingChange, VfsEntry, VfsStat, WritableVfs, WriteOptions } from './types';

export type PendingValue = { oid: string; mode: FileMode } | null;

export interface WorkInProgressOptions {
  /** Keeps pending blobs reachable for git gc (see pending-pin.ts). */
  pin?: PendingPin;
  /** Called before every journal write: throws when this process may no longer write (lease lost). */
  beforeWrite?: () => Promise<void>;
  /** A view that never writes its journal (readers: `forge cat --session`). */
  readOnly?: boolean;
  /** Called once the journal and the pin are gone (commit, discard): the session lets its lease go. */
  afterClear?: () => Promise<void>;
}

type Kind = 'file' | 'symlink' | 'submodule' | 'directory';

/** A batch's blobs are pinned once they add up to this much (see deferPins). */
const PIN_BATCH_BYTES = 8 * 1024 * 1024;

export class WorkInProgressVfs implements WritableVfs {
  private pending = new Map<string, PendingValue>();
  /** Number of live pending files below each directory (pending writes create directories). */
  private pendingDirs = new Map<string, number>();
  /** Number of base files deleted below each directory (a base directory vanishes when all are). */
  private deletedUnder = new Map<string, number>();
  private baseFileCounts = new Map<string, number>();
  /** Sizes of the blobs this view wrote since its last commit: stat need not read a large blob back. */
  private writtenSizes = new Map<string, number>();
  private journalStarted = false;
  /** A journal write failed: the file may lack records the view has, so the next write rewrites it whole. */
  private journalStale = false;
  /** Changes of the tool call in progress, journaled with its state record as one line. */
  private batch: JournalEntry[] | null = null;
  /** State records journaled since the last commit (kept to rewrite the journal whole). */
  private stateRecords: unknown[] = [];
  /**
   * Blobs journaled but not pinned yet, while pins are batched (see deferPins); null: every
   * journal record pins its blobs first.
   */
  private unpinned: Set<string> | null = null;
  /** Bytes of the blobs in `unpinned` (as far as known): the object store holds them until a ref moves. */
  private unpinnedBytes = 0;
  /**
   * While pins are batched: the records journaled since the last pin, written with it in one
   * append (see deferPins). What "the journal holds" (loadJournal) includes them.
   */
  private held: JournalRecord[] = [];
  readonly owner: string;
  private readonly options: WorkInProgressOptions;

  constructor(
    private base: CommitVfs,
    private readonly journal: Journal = new NullJournal(),
    owner?: string,
    options: WorkInProgressOptions = {},
  ) {
    this.owner = owner ?? randomId();
    this.options = options;
  }

  /** Re-opens a journaled pending set over its base view. */
  static async restore(
    base: CommitVfs,
    journal: Journal,
    owner?: string,
    options: WorkInProgressOptions = {},
  ): Promise<{ vfs: WorkInProgressVfs; states: unknown[]; journalBase?: string; torn?: { line: number; dropped: number }; dropped?: string[] }> {
    const vfs = new WorkInProgressVfs(base, journal, owner, options);
    const content = await journal.load();
    if (content === null) return { vfs, states: [] };
    for (const [path, value] of content.changes) vfs.setPending(path, value);
    vfs.stateRecords = [...content.states];
    const torn = content.torn ? { torn: content.torn } : {};
    if (options.readOnly) return { vfs, states: vfs.stateRecords, journalBase: content.base, ...torn };
    await options.beforeWrite?.();
    const present = new Set(await vfs.presentPendingOids());
    // Blobs a gc removed before they were pinned (a `forge turn` killed in the middle of its
    // batch, whose calls nobody was told had succeeded): no commit can hold them, so their paths
    // go back to the base's version here, and the caller says which.
    const dropped = [...vfs.pending].filter(([, v]) => v !== null && !present.has(v.oid)).map(([path]) => path);
    for (const path of dropped) vfs.setPending(path, undefined);
    await options.pin?.pin(present, base.commit ?? '');
    // Take ownership so that this view's commit clears the journal (and drop a torn tail).
    await journal.rewrite({ base: content.base, owner: vfs.owner, changes: vfs.pending, states: vfs.stateRecords });
    vfs.journalStarted = true;
    return { vfs, states: vfs.stateRecords, journalBase: content.base, ...torn, ...(dropped.length > 0 ? { dropped } : {}) };
  }

  /**
   * From here on, journal records do not pin their blobs one by one: they are pinned together
   * by pinDeferred (a `forge turn`, whose calls are acknowledged only when it exits, pins once
   * per batch instead of once per call; a long batch every PIN_BATCH_BYTES of blobs, so what the
   * object store holds for them stays bounded). A kill before that leaves a journal naming unpinned
   * blobs; a gc may remove them, and the next open drops those paths (restore's `dropped`).
   *
   * The batch's journal records are held too, and appended in one write at each pin (after the
   * pin: the blobs they name are on disk and pinned by then), its new objects written as one
   * pack when the pin's ref moves (ObjectStore.stageWrites); the lease is checked at each pin,
   * not per record. A kill before a pin loses the batch's calls since the last one: none was
   * acknowledged. A pin every PIN_BATCH_BYTES that fails (a full disk) does not fail the call
   * that reached it, nor undo the calls before it: what it could not write stays held, and the
   * commit writes it or fails the whole batch (it pins again first). loadJournal answers with
   * the held records, so a call that fails is rolled back to the calls before it, not further.
   */
  deferPins(): void {
    if (this.options.readOnly || this.unpinned !== null) return;
    this.unpinned = new Set();
    this.unpinnedBytes = 0;
    // The batch's new objects are written together (one pack), before any ref names them.
    this.repo.objects.stageWrites();
  }

  /**
   * Pins the blobs deferred since deferPins (pins stay batched), each only if present or staged
   * to be written with the pin (the pin never names a missing object), then appends the held
   * journal records.
   */
  async pinDeferred(): Promise<void> {
    const unpinned = this.unpinned;
    if (unpinned === null || (unpinned.size === 0 && this.held.length === 0)) return;
    // The batch's one lease check per pin (its calls do not read it: Session.prepareCall).
    await this.options.beforeWrite?.();
    await this.pinUnchecked();
  }

  private async pinUnchecked(): Promise<void> {
    const unpinned = this.unpinned!;
    if (unpinned.size > 0) {
      this.unpinned = new Set();
      const bytes = this.unpinnedBytes;
      this.unpinnedBytes = 0;
      try {
        const oids: string[] = [];
        // A staged object is written before the pin's ref moves onto it, with the pin's trees.
        for (const oid of unpinned) if (this.repo.objects.isStaged(oid) || (await this.repo.objects.freshen(oid))) oids.push(oid);
        await this.options.pin?.pin(oids, this.base.commit ?? '');
      } catch (error) {
        // Pinned by the next try (the commit's, at the latest).
        for (const oid of unpinned) this.unpinned.add(oid);
        this.unpinnedBytes += bytes;
        throw error;
      }
    }
    if (this.held.length > 0) await this.writeHeld();
  }

  /**
   * Just before a turn commit moves its branch onto `tree`: the batch's blobs (all reached by
   * that tree, checked on disk by the commit) are kept from gc by the pin holding the tree,
   * not by a fan-out tree of them (PendingPin.pinTree); they stay unpinned for pinDeferred
   * if the commit fails. The held records are not written: the commit clears the journal.
   */
  async pinForCommit(tree: string): Promise<void> {
    if (this.unpinned === null || this.unpinned.size === 0) return;
    await this.options.pin?.pinTree(tree, this.base.commit ?? '');
  }

  /** Appends the held records in one write (the journal rewritten whole where it must be). */
  private async writeHeld(): Promise<void> {
    if (!this.journalStarted || this.journalStale) return this.persistJournal();
    const held = this.held;
    let appended: boolean;
    try {
      appended = await this.journal.appendRecords(held);
    } catch (error) {
      // Kept held: the next write rewrites the journal whole from the view.
      this.journalStale = true;
      throw error;
    }
    this.held = [];
    if (!appended) await this.persistJournal();
  }

  /** Keeps more blobs reachable for gc while they are pending (e.g. what the undo entry restores). */
  async pinObjects(oids: Iterable<string>): Promise<void> {
    if (this.options.readOnly) return;
    await this.options.pin?.pin(await this.present(oids), this.base.commit ?? '');
  }

  /**
   * From here to the next journalState (or endBatch), changes are journaled together with that
   * state record as one line: a tool call's edits and its record are one unit on disk.
   */
  beginBatch(): void {
    this.batch ??= [];
  }

  /** Journals what a batch holds that no state record took (the call failed before recording). */
  async endBatch(): Promise<void> {
    const batch = this.batch;
    this.batch = null;
    if (batch !== null && batch.length > 0) await this.flush(batch, undefined, false);
  }

  get baseView(): CommitVfs {
    return this.base;
  }

  get repo() {
    return this.base.repo;
  }

  /** The pending set itself (read-only use: the turn commit builds trees from it). */
  get pendingSet(): ReadonlyMap<string, PendingValue> {
    return this.pending;
  }

  get hasPending(): boolean {
    return this.pending.size > 0;
  }

  async readFile(path: string): Promise<Uint8Array> {
    const p = normalizePath(path);
    const pending = this.pending.get(p);
    if (pending) return this.repo.readBlob(pending.oid);
    const kind = await this.kindAt(p);
    if (kind === null) throw new ForgeError('PATH_NOT_FOUND', `No file at "${path}".`, { data: { path } });
    if (kind === 'directory') throw new ForgeError('PATH_IS_DIRECTORY', `"${path}" is a directory, not a file.`, { data: { path } });
    return this.base.readFile(p);
  }

  readBlob(oid: string): Promise<Uint8Array> {
    return this.repo.readBlob(oid);
  }

  async exists(path: string): Promise<boolean> {
    return (await this.kindAt(normalizePath(path, { allowRoot: true }))) !== null;
  }

  async stat(path: string): Promise<VfsStat | null> {
    const p = normalizePath(path, { allowRoot: true });
    const kind = await this.kindAt(p);
    if (kind === null) return null;
    const pending = this.pending.get(p);
    if (pending) {
      const size = this.writtenSizes.get(pending.oid) ?? (await this.repo.blobSize(pending.oid));
      return { name: nameOf(p), path: p, type: entryType(pending.mode), mode: pending.mode, oid: pending.oid, size };
    }
    if (kind === 'directory') {
      const baseEntry = await this.base.entry(p);
      const touched = this.pendingDirs.has(p) || this.deletedUnder.has(p) || p === '';
      return { name: nameOf(p), path: p, type: 'directory', mode: '040000', oid: touched && this.pending.size > 0 ? '' : baseEntry?.mode === '040000' ? baseEntry.oid : '' };
    }
    return this.base.stat(p);
  }

  async list(dir: string): Promise<VfsEntry[]> {
    const p = normalizePath(dir, { allowRoot: true });
    const kind = await this.kindAt(p);
    if (kind === null) throw new ForgeError('PATH_NOT_FOUND', `No directory at "${dir}".`, { data: { path: dir } });
    if (kind !== 'directory') throw new ForgeError('PATH_NOT_DIRECTORY', `"${dir}" is a file, not a directory.`, { data: { path: dir } });
    const out = new Map<string, VfsEntry>();
    const baseEntries = this.baseChildrenVisible(p) ? await this.base.directory(p) : null;
    for (const entry of baseEntries?.values() ?? []) {
      const path = p ? `${p}/${entry.name}` : entry.name;
      const childKind = await this.kindAt(path);
      if (childKind === null) continue;
      out.set(entry.name, await this.entryFor(path, entry, childKind));
    }
    for (const path of this.pending.keys()) {
      if (parentOf(path) !== p || this.pending.get(path) === null) continue;
      const value = this.pending.get(path)!;
      out.set(nameOf(path), { name: nameOf(path), path, type: entryType(value.mode), mode: value.mode, oid: value.oid });
    }
    for (const [dirPath, count] of this.pendingDirs) {
      if (count > 0 && parentOf(dirPath) === p && !out.has(nameOf(dirPath))) {
        out.set(nameOf(dirPath), { name: nameOf(dirPath), path: dirPath, type: 'directory', mode: '040000', oid: '' });
      }
    }
    return [...out.values()].sort((a, b) => comparePaths(a.name, b.name));
  }

  async walk(dir = ''): Promise<VfsEntry[]> {
    const p = normalizePath(dir, { allowRoot: true });
    const base = await this.base.walk(p);
    if (this.pending.size === 0) return base;
    // Both lists are in git's path order: merge them instead of sorting the whole tree.
    const written: VfsEntry[] = [];
    for (const [path, value] of this.pending) {
      if (value !== null && isUnder(path, p)) written.push({ name: nameOf(path), path, type: entryType(value.mode), mode: value.mode, oid: value.oid });
    }
    written.sort((a, b) => comparePaths(a.path, b.path));
    const out: VfsEntry[] = [];
    let w = 0;
    for (const entry of base) {
      if (this.pending.has(entry.path) || this.shadowedByPendingFile(entry.path)) continue;
      while (w < written.length && comparePaths(written[w]!.path, entry.path) < 0) out.push(written[w++]!);
      out.push(entry);
    }
    while (w < written.length) out.push(written[w++]!);
    return out;
  }

  async writeFile(path: string, content: Bytes, options: WriteOptions = {}): Promise<void> {
    const p = normalizePath(path);
    for (const ancestor of ancestorsOf(p)) {
      const kind = await this.kindAt(ancestor);
      if (kind !== null && kind !== 'directory') {
        throw new ForgeError('PATH_NOT_DIRECTORY', `Cannot write "${path}": "${ancestor}" is a file, not a directory.`, { data: { path, parent: ancestor } });
      }
    }
    const kind = await this.kindAt(p);
    if (kind === 'directory') throw new ForgeError('PATH_IS_DIRECTORY', `Cannot write "${path}": it is a directory.`, { data: { path } });
    if (kind === 'submodule') throw new ForgeError('PATH_IS_DIRECTORY', `Cannot write "${path}": it is a submodule.`, { data: { path } });
    const mode = options.mode ?? (await this.currentMode(p)) ?? '100644';
    const oid = await this.repo.writeBlob(content);
    this.writtenSizes.set(oid, bytesLength(content));
    const baseEntry = await this.baseEntryAt(p);
    if (baseEntry && baseEntry.oid === oid && baseEntry.mode === mode) {
      await this.change(p, undefined);
    } else {
      await this.change(p, { oid, mode });
    }
  }

  async deleteFile(path: string): Promise<void> {
    const p = normalizePath(path);
    const kind = await this.kindAt(p);
    if (kind === null) throw new ForgeError('PATH_NOT_FOUND', `Cannot delete "${path}": no file there.`, { data: { path } });
    if (kind === 'directory') throw new ForgeError('PATH_IS_DIRECTORY', `Cannot delete "${path}": it is a directory; delete the files in it.`, { data: { path } });
    await this.change(p, (await this.baseEntryAt(p)) ? null : undefined);
  }

  /** Sets a path back to exactly what the base has (or absent), e.g. for undo inside a turn. */
  async revertToBase(path: string): Promise<void> {
    await this.change(normalizePath(path), undefined);
  }

  async diff(): Promise<PendingChange[]> {
    const out: PendingChange[] = [];
    for (const path of [...this.pending.keys()].sort(comparePaths)) {
      const value = this.pending.get(path)!;
      const baseEntry = await this.baseEntryAt(path);
      if (value === null) {
        if (baseEntry) out.push({ path, kind: 'deleted', oldOid: baseEntry.oid, oldMode: baseEntry.mode as EntryMode });
      } else if (baseEntry) {
        out.push({ path, kind: 'modified', oldOid: baseEntry.oid, oldMode: baseEntry.mode as EntryMode, newOid: value.oid, newMode: value.mode });
      } else {
        out.push({ path, kind: 'added', newOid: value.oid, newMode: value.mode });
      }
    }
    return out;
  }

  async discard(): Promise<void> {
    this.resetPending();
    this.unpinned &&= new Set();
    this.unpinnedBytes = 0;
    this.held = [];
    this.stateRecords = [];
    this.batch = null;
    if (this.options.readOnly) return;
    await this.journal.clear(this.owner);
    await this.options.pin?.clear();
    this.journalStarted = false;
    this.journalStale = false;
    await this.options.afterClear?.();
  }

  /**
   * Forgets the pending layer in memory only and sits on a new base (another process discarded
   * the journal, which is no longer ours to touch).
   */
  forget(newBase: CommitVfs): void {
    this.base = newBase;
    this.resetPending();
    this.unpinned &&= new Set();
    this.unpinnedBytes = 0;
    this.held = [];
    this.stateRecords = [];
    this.batch = null;
    this.journalStarted = false;
    this.journalStale = false;
  }

  /**
   * Sits on a new base with these pending changes and state records (a pending layer carried
   * onto a moved branch head), journaled whole as this view's own.
   */
  async adopt(newBase: CommitVfs, changes: ReadonlyMap<string, PendingValue>, stateRecords: unknown[]): Promise<void> {
    this.base = newBase;
    this.resetPending();
    for (const [path, value] of changes) this.setPending(path, value);
    this.stateRecords = [...stateRecords];
    this.batch = null;
    await this.options.beforeWrite?.();
    await this.options.pin?.pin(await this.presentPendingOids(), newBase.commit ?? '');
    await this.persistJournal();
  }

  /**
   * Back to what the journal on disk holds, in memory only (after a journal write failed: the
   * file was cut back to its last whole record, and the view must not keep what it did not take).
   */
  resetToJournaled(changes: ReadonlyMap<string, PendingValue>, stateRecords: unknown[], journalOnDisk: boolean): void {
    this.resetPending();
    for (const [path, value] of changes) this.setPending(path, value);
    this.stateRecords = [...stateRecords];
    this.batch = null;
    this.journalStarted = journalOnDisk;
    this.journalStale = false;
  }

  /**
   * What the journal holds now (another process may have left it: see Session.prepareCall),
   * with this view's held batch records after what the file has.
   */
  async loadJournal(): Promise<JournalContent | null> {
    const content = await this.journal.load();
    if (this.held.length === 0) return content;
    // A batch's records not written yet are journaled all the same (see deferPins).
    const out: JournalContent = content ?? { base: this.base.commit ?? '', owner: this.owner, changes: new Map(), states: [] };
    for (const record of this.held) {
      for (const change of record.changes ?? []) applyEntry(out, change);
      if ('state' in record) out.states.push(record.state);
    }
    return out;
  }

  /** The state records journaled since the last commit. */
  get journaledStates(): readonly unknown[] {
    return this.stateRecords;
  }

  /** After a commit: the committed tree becomes the base and the pending set empties. */
  async rebase(newBase: CommitVfs): Promise<void> {
    this.base = newBase;
    await this.discard();
  }

  /**
   * Journals a state record with the pending set (crash recovery of the conversation), together
   * with the changes of the call in progress; `keep` names more blobs to keep from gc.
   */
  async journalState(state: unknown, keep: readonly string[] = []): Promise<void> {
    const batch = this.batch ?? [];
    this.batch = null;
    this.stateRecords.push(state);
    await this.flush(batch, state, true, keep);
  }

  /** Rewrites the journal as this view's own (after a lost compare-and-swap, so nothing is lost). */
  async persistJournal(): Promise<void> {
    if (this.options.readOnly) return;
    await this.journal.rewrite({ base: this.base.commit ?? '', owner: this.owner, changes: this.pending, states: this.stateRecords });
    this.journalStarted = true;
    this.journalStale = false;
    this.held = [];
  }

  /**
   * Forgets pending paths whose blobs a `git prune` removed and nothing can re-create: they go
   * back to the base's version, the journal is rewritten without them, and the pin is rebuilt
   * from what is still there (it must not name a missing object: git gc would fail on it).
   */
  async dropPending(paths: readonly string[]): Promise<void> {
    for (const path of paths) this.setPending(path, undefined);
    await this.options.beforeWrite?.();
    await this.options.pin?.repair(await this.presentPendingOids(), this.base.commit ?? '');
    await this.persistJournal();
  }

  /** Every blob the pending set names (what must survive gc until the commit). */
  pendingOids(): string[] {
    const out: string[] = [];
    for (const value of this.pending.values()) if (value !== null) out.push(value.oid);
    return out;
  }

  /**
   * The pending blobs still in the repository (a reopened journal may name blobs a gc removed
   * before they were pinned: the pin must not reference them, the turn commit reports them).
   */
  private presentPendingOids(): Promise<string[]> {
    return this.present(this.pendingOids());
  }

  private async present(oids: Iterable<string>): Promise<string[]> {
    const out: string[] = [];
    for (const oid of oids) if (await this.repo.objects.freshen(oid)) out.push(oid);
    return out;
  }

  private async change(path: string, value: PendingValue | undefined): Promise<void> {
    this.setPending(path, value);
    const entry: JournalEntry = value === undefined ? { path, reverted: true } : value === null ? { path, deleted: true } : { path, oid: value.oid, mode: value.mode };
    if (this.batch !== null) this.batch.push(entry);
    else await this.flush([entry], undefined, false);
  }

  /**
   * Writes one journal record: pins its blobs for gc first, then appends one line (or, for a
   * journal not started yet, stale after a failed write, or removed, rewrites it whole from the
   * view, which already holds these changes and this state record).
   */
  private async flush(changes: JournalEntry[], state: unknown, hasState: boolean, keep: readonly string[] = []): Promise<void> {
    if (this.options.readOnly) throw new ForgeError('READ_ONLY_VIEW', 'This view of the session was opened read-only.');
    if (changes.length === 0 && !hasState) return;
    if (this.unpinned !== null) {
      // Batched: held, written with the next pin, which asks which blobs are still there.
      for (const oid of keep) this.unpinned.add(oid);
      for (const change of changes) {
        if (!('oid' in change) || this.unpinned.has(change.oid)) continue;
        this.unpinned.add(change.oid);
        this.unpinnedBytes += this.writtenSizes.get(change.oid) ?? 0;
      }
      this.held.push(hasState ? { changes, state } : { changes });
      // The object store keeps what it wrote until a ref reaches it (to write it again if a gc
      // takes it): a long batch is pinned every few MiB so that memory stays bounded.
      if (this.unpinnedBytes >= PIN_BATCH_BYTES) await this.pinMidBatch();
      return;
    }
    await this.options.beforeWrite?.();
    {
      // What the undo entry restores may have been pruned long ago: the pin never names a missing object.
      const blobs: string[] = keep.length > 0 ? await this.present(keep) : [];
      for (const change of changes) if ('oid' in change) blobs.push(change.oid);
      await this.options.pin?.pin(blobs, this.base.commit ?? '');
    }
    if (!this.journalStarted || this.journalStale) return this.persistJournal();
    let appended: boolean;
    try {
      appended = await this.journal.appendRecord(hasState ? { changes, state } : { changes });
    } catch (error) {
      this.journalStale = true;
      throw error;
    }
    // The file is gone (removed behind our back): rewrite it whole from the view.
    if (!appended) await this.persistJournal();
  }

  /**
   * A pin reached in the middle of a batch. The lease is checked first (a session discarded
   * behind our back fails this call, as it would any call); a failed write after that (a full
   * disk) is left to the commit, which pins again and fails the batch if it still cannot:
   * the call that reached the pin changed nothing wrong, and the calls before it stay.
   */
  private async pinMidBatch(): Promise<void> {
    await this.options.beforeWrite?.();
    try {
      await this.pinUnchecked();
    } catch {
      // Still unpinned and held: the next pin tries again.
    }
  }

  /** Updates the pending map and the directory counters (undefined: back to base). */
  private setPending(path: string, value: PendingValue | undefined): void {
    const before = this.pending.get(path);
    const had = this.pending.has(path);
    if (had && before !== null) this.bump(this.pendingDirs, path, -1);
    if (had && before === null) this.bump(this.deletedUnder, path, -1);
    if (value === undefined) this.pending.delete(path);
    else this.pending.set(path, value);
    if (value !== undefined && value !== null) this.bump(this.pendingDirs, path, +1);
    if (value === null) this.bump(this.deletedUnder, path, +1);
  }

  private bump(counter: Map<string, number>, path: string, delta: number): void {
    for (const dir of ancestorsOf(path)) {
      const next = (counter.get(dir) ?? 0) + delta;
      if (next === 0) counter.delete(dir);
      else counter.set(dir, next);
    }
  }

  private resetPending(): void {
    this.writtenSizes = new Map();
    this.pending = new Map();
    this.pendingDirs = new Map();
    this.deletedUnder = new Map();
    this.baseFileCounts = new Map();
  }

  /** What is at a path in the overlaid view, or null. */
  private async kindAt(path: string): Promise<Kind | null> {
    if (path === '') return 'directory';
    if (this.pending.has(path)) {
      const value = this.pending.get(path)!;
      if (value !== null) return entryType(value.mode) as Kind;
      return this.pendingDirs.has(path) ? 'directory' : null;
    }
    if (this.pendingDirs.has(path)) return 'directory';
    if (this.shadowedByPendingFile(path)) return null;
    const entry = await this.base.entry(path);
    if (entry === null) return null;
    if (entry.mode !== '040000') return entryType(entry.mode) as Kind;
    return (await this.baseDirectorySurvives(path)) ? 'directory' : null;
  }

  /** A pending file or deletion at an ancestor hides everything the base has below it. */
  private shadowedByPendingFile(path: string): boolean {
    for (const ancestor of ancestorsOf(path)) if (this.pending.has(ancestor)) return true;
    return false;
  }

  private baseChildrenVisible(dir: string): boolean {
    return dir === '' || (!this.pending.has(dir) && !this.shadowedByPendingFile(dir));
  }

  private async baseDirectorySurvives(dir: string): Promise<boolean> {
    const deleted = this.deletedUnder.get(dir) ?? 0;
    if (deleted === 0) return true;
    let total = this.baseFileCounts.get(dir);
    if (total === undefined) {
      total = (await this.base.walk(dir)).length;
      this.baseFileCounts.set(dir, total);
    }
    return deleted < total;
  }

  private async baseEntryAt(path: string): Promise<TreeEntry | null> {
    for (const ancestor of ancestorsOf(path)) {
      const entry = await this.base.entry(ancestor);
      if (entry === null || entry.mode !== '040000') return null;
    }
    const entry = await this.base.entry(path);
    return entry && entry.mode !== '040000' ? entry : null;
  }

  private async currentMode(path: string): Promise<FileMode | undefined> {
    const pending = this.pending.get(path);
    if (pending) return pending.mode;
    if (pending === null) return undefined;
    const entry = await this.baseEntryAt(path);
    return entry && entry.mode !== '160000' ? (entry.mode as FileMode) : undefined;
  }

  private async entryFor(path: string, entry: TreeEntry, kind: Kind): Promise<VfsEntry> {
    const changedBelow = kind === 'directory' && (this.pendingDirs.has(path) || this.deletedUnder.has(path));
    // A base file deleted and replaced by a directory of pending writes is a directory now, not the base file's mode.
    const mode = kind === 'directory' ? '040000' : (entry.mode as EntryMode);
    return { name: entry.name, path, type: kind, mode, oid: changedBelow ? '' : entry.oid };
  }
}

function randomId(): string {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
