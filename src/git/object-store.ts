/**
 * The object database: loose objects and packs (and alternates) under `objects/`.
 * With synchronous random access and zlib (node's fs or memfs with the Node platform), reads go
 * through our own pack reader and loose-object cache, and writes are synchronous; otherwise
 * (a browser) reads go through the async reader (async-objects.ts: packs by offset, loose
 * objects, async inflate, no Buffer) and writes through the promise API. Writes are
 * crash-safe either way: a temporary file in the object's directory, then a rename.
 */
import { ForgeError, toForgeError } from '../errors';
import { errnoCode, hasSyncApi, joinPath, type FsSync, type GitFs } from './fs';
import { AsyncObjects } from './async-objects';
import { bytesLength, joinBytes, runsOf, type Bytes } from './byte-runs';
import { mkdirp } from './fs-capabilities';
import { LooseObjects, objectWriteError, tempObjectName, type CompressedObject } from './loose-objects';
import { frameObject, objectHeader, type ObjectType } from './object-codec';
import { PackIndex } from './pack-index';
import { PACK_MIN_OBJECTS, StagedObjects, writePackFiles } from './staged-objects';
import { createDeltaBaseCache, PackReader, type DeltaBaseCache, type RawObject } from './pack-reader';
import { fromHex, type GitPlatform, type SyncPlatform } from './platform';

export type { RawObject };

/** Content kept for objects written and not yet reached by a ref moved since (see settle). */
const UNSETTLED_BYTES = 256 * 1024 * 1024;
/** From this size an object is hashed and deflated in parts (see SyncPlatform.deflateParts). */
const LARGE_OBJECT_BYTES = 1024 * 1024;
/**
 * Staged objects (see stageWrites) are written once they hold this much content: a bound for any
 * batch, above the session's own pin interval (8 MiB, work-in-progress-vfs.ts), which writes them first.
 */
const STAGED_BYTES = 16 * 1024 * 1024;

interface ObjectDir {
  path: string;
  loose: LooseObjects | null;
  packs: PackReader[] | null;
}

export class ObjectStore {
  private readonly dirs: ObjectDir[];
  private readonly syncFs: (GitFs & FsSync) | null;
  private readonly zlib: SyncPlatform | null;
  private readonly baseCache: DeltaBaseCache = createDeltaBaseCache();
  /** Reads where the fs has no synchronous calls or the platform no sync zlib (a browser). */
  private readonly asyncObjects: AsyncObjects | null;
  /** New small objects held until written together (see stageWrites); null: each written at once. */
  private staged: StagedObjects | null = null;

  constructor(
    private readonly fs: GitFs,
    private readonly gitdir: string,
    private readonly platform: GitPlatform,
    alternates: string[] = [],
  ) {
    this.syncFs = hasSyncApi(fs) && platform.sync ? fs : null;
    this.zlib = this.syncFs ? platform.sync! : null;
    this.dirs = [joinPath(gitdir, 'objects'), ...alternates].map((path) => ({
      path,
      loose: this.syncFs ? new LooseObjects(this.syncFs, path, this.zlib!) : null,
      packs: null,
    }));
    this.asyncObjects = this.syncFs ? null : new AsyncObjects(fs, this.dirs.map((d) => d.path), platform, this.baseCache);
  }

  /** Whether reads use the synchronous positional pack reader (false: the async reader). */
  get fastPath(): boolean {
    return this.syncFs !== null;
  }

  async read(oid: string): Promise<RawObject> {
    return this.readNow(oid);
  }

  /**
   * From here on, new objects under LARGE_OBJECT_BYTES are held in memory and written together
   * (one pack of them, or loose when they are few: staged-objects.ts) before anything on disk
   * could name them: before a ref moves (beforeRefUpdate, restoreUnsettled), before the store
   * says whether an object is on disk (freshen, ensureHeld of another object), at close, and
   * every STAGED_BYTES. Reads see them meanwhile. For a batch whose objects no one is told about
   * before it ends (a `forge turn`): a kill before the write loses only that batch's objects.
   * Only where writes are synchronous (Node); elsewhere a no-op.
   */
  stageWrites(): void {
    if (this.syncFs) this.staged ??= new StagedObjects();
  }

  /** Whether the object is held to be written with the batch (see stageWrites). */
  isStaged(oid: string): boolean {
    return this.staged?.has(oid) ?? false;
  }

  /**
   * Writes the staged objects: one pack and its index, or loose objects when there are fewer than
   * PACK_MIN_OBJECTS (a pack per small batch would pile up packs that every lookup searches). On
   * failure they stay staged (a later write tries again).
   */
  flushStaged(): void {
    const staged = this.staged;
    if (staged === null || staged.size === 0) return;
    const objects = staged.entries();
    const dir = this.dirs[0]!;
    if (objects.length < PACK_MIN_OBJECTS) {
      for (const [oid, { type, content }] of objects) dir.loose!.write(oid, this.zlib!.deflate(frameObject(type, content)));
    } else {
      const { indexPath, packPath, index } = writePackFiles(this.syncFs!, dir.path, this.zlib!, objects);
      // Listed already: the new pack joins the listing (listing it again would reopen every
      // index), its index from the bytes just written (the commit asks it for every object).
      if (dir.packs !== null && !dir.packs.some((p) => p.packPath === packPath)) {
        dir.packs.push(new PackReader(new PackIndex(index, indexPath), packPath, this.syncFs!, this.zlib!, this.baseCache, (oid) => this.readSync(oid)));
      }
    }
    staged.clear();
  }

  async readTyped(oid: string, type: ObjectType): Promise<Uint8Array> {
    return contentOfType(await this.read(oid), oid, type);
  }

  /**
   * readTyped, but synchronous where reads are (the fast path): for loops over thousands of
   * objects, where a promise per object costs more than reading it.
   */
  readTypedNow(oid: string, type: ObjectType): Uint8Array | Promise<Uint8Array> {
    const object = this.readNow(oid);
    return object instanceof Promise ? object.then((o) => contentOfType(o, oid, type)) : contentOfType(object, oid, type);
  }

  /**
   * A packed tree's bytes by its raw oid, synchronously (listings: no hex string per tree and
   * back); null when it is not in a listed pack as a tree, or not readable so: the caller then
   * reads it by hex oid, which looks again, reads loose objects and reports what is wrong.
   */
  packedTreeNow(raw: Uint8Array): Uint8Array | null {
    if (!this.syncFs) return null;
    const hit = this.packed(raw);
    if (hit === null) return null;
    try {
      const object = hit.pack.readAt(hit.position);
      return object.type === 'tree' ? object.content : null;
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw toForgeError(error);
    }
  }

  private readNow(oid: string): RawObject | Promise<RawObject> {
    if (!this.syncFs) return this.readAsync(oid);
    const staged = this.staged?.get(oid);
    if (staged !== undefined) return { type: staged.type, content: staged.content };
    const found = this.readSync(oid);
    if (found) return found;
    throw notFound(oid);
  }

  /** An object's size without inflating it where the fast path can (pack entry or loose header). */
  async sizeOf(oid: string): Promise<number> {
    const staged = this.staged?.get(oid);
    if (staged !== undefined) return staged.content.length;
    if (this.syncFs) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const hit = this.packed(this.oidBytes(oid));
        if (hit !== null) {
          try {
            return hit.pack.sizeAt(hit.position);
          } catch (error) {
            if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
          }
        }
        for (const dir of this.dirs) {
          const size = dir.loose!.sizeOf(oid);
          if (size !== null) return size;
        }
        this.refresh(); // repacked or written since we listed: look once more
      }
    }
    return (await this.read(oid)).content.length;
  }

  /**
   * Whether the object is on disk now: its loose file, or a listed pack that still exists (the
   * packs listed again once when neither answers: a gc may have packed it). Nothing is touched.
   */
  private async presentNow(oid: string, packsSeen?: Set<string>): Promise<boolean> {
    if (!this.syncFs) return this.has(oid);
    this.flushStaged();
    for (let attempt = 0; attempt < 2; attempt++) {
      const raw = this.oidBytes(oid);
      // Packs first: an index lookup is in memory, and a pack seen on disk in this same check
      // (`packsSeen`: one pass over a batch's objects) is not asked again.
      for (const dir of this.dirs) {
        for (const pack of this.packsOf(dir)) {
          if (pack.index.find(raw) < 0) continue;
          if (packsSeen?.has(pack.packPath)) return true;
          if (this.syncFs.existsSync(pack.packPath)) {
            packsSeen?.add(pack.packPath);
            return true;
          }
        }
      }
      for (const dir of this.dirs) if (dir.loose!.present(oid)) return true;
      this.refresh();
    }
    return false;
  }

  async has(oid: string): Promise<boolean> {
    if (this.staged?.has(oid)) return true;
    if (this.syncFs) return this.hasSync(oid) || (this.refresh(), this.hasSync(oid));
    return this.asyncObjects!.has(oid);
  }

  /**
   * Writes an object (if absent) and returns its oid. As git does, an object that is already
   * there is freshened instead (its file touched), and one that a `git gc` removed since we
   * listed it is written again: a cached listing never stands in for the file. Content given
   * as runs (ByteRuns) is joined only when small.
   */
  async write(type: ObjectType, given: Bytes): Promise<string> {
    const size = bytesLength(given);
    if (this.writesInParts(size)) {
      // Large: hashed and deflated as header + content, never framed into one more copy.
      const parts = [objectHeader(type, size), ...runsOf(given)];
      const oid = this.zlib!.sha1HexParts!(parts);
      if (!this.freshenSync(oid, false, true)) this.dirs[0]!.loose!.write(oid, this.deflatedRuns(parts));
      this.remember(oid, type, given);
      return oid;
    }
    const content = joinBytes(given);
    const framed = frameObject(type, content);
    let oid: string;
    if (this.syncFs) {
      oid = this.zlib!.sha1Hex(framed);
      const staged = this.staged;
      if (staged !== null) {
        // Held and written with the batch (deflated then); one already on disk is freshened.
        if (!staged.has(oid) && !this.freshenSync(oid, false, true)) staged.add(oid, { type, content });
        this.remember(oid, type, content);
        if (staged.bytes >= STAGED_BYTES) this.flushStaged();
        return oid;
      }
      if (!this.freshenSync(oid, false, true)) this.dirs[0]!.loose!.write(oid, this.zlib!.deflate(framed));
    } else {
      oid = await this.platform.sha1Hex(framed);
      if (!(await this.has(oid))) await this.writeAsync(oid, await this.platform.deflate(framed));
    }
    this.remember(oid, type, content);
    return oid;
  }

  /** From LARGE_OBJECT_BYTES, where the platform hashes and deflates parts (the fast path). */
  private writesInParts(size: number): boolean {
    return this.syncFs !== null && size >= LARGE_OBJECT_BYTES && this.zlib!.sha1HexParts !== undefined && (this.zlib!.deflateInto !== undefined || this.zlib!.deflateParts !== undefined);
  }

  /** A large object's zlib stream: made into the file a piece at a time where the platform can. */
  private deflatedRuns(parts: readonly Uint8Array[]): CompressedObject {
    const zlib = this.zlib!;
    return zlib.deflateInto ? (write) => zlib.deflateInto!(parts, write) : zlib.deflateParts!(parts);
  }

  /**
   * Objects written since the last settle, kept until a ref reaches them: a concurrent
   * `git gc --prune=now` that walked the refs before that can delete them (see gc-guard.ts).
   * Bounded: past the budget the oldest are forgotten (they can then only be reported missing).
   */
  private readonly unsettled = new Map<string, { type: ObjectType; content: Bytes }>();
  private unsettledBytes = 0;

  private remember(oid: string, type: ObjectType, content: Bytes): void {
    if (this.unsettled.has(oid)) return;
    this.unsettled.set(oid, { type, content });
    this.unsettledBytes += bytesLength(content);
    for (const [old, entry] of this.unsettled) {
      if (this.unsettledBytes <= UNSETTLED_BYTES || this.unsettled.size === 1) break;
      this.unsettled.delete(old);
      this.unsettledBytes -= bytesLength(entry.content);
    }
  }

  /**
   * Before a ref moves to what this store wrote: a gc already running walked the refs before the
   * move, so its prune would delete those objects under the ref. Waiting it out first means a
   * process killed while it waits leaves the ref where it was, never naming a pruned object
   * (settle, after the move, covers a gc that starts in between).
   */
  async beforeRefUpdate(waitForGc: () => Promise<boolean>): Promise<void> {
    this.flushStaged();
    if (this.unsettled.size === 0) return;
    // The gc waited out may have pruned them (nothing reached them yet): the ref must not move
    // onto a missing object, so they are written again first.
    if (await waitForGc()) await this.restoreMissing([...this.unsettled]);
  }

  /**
   * Just before a ref moves (under its lock): each object written since the last move is on
   * disk, or written again now, same bytes under the same oid. `git gc` holds gc.pid and is
   * waited out; `git prune` (or a prune loop beside a server) holds nothing, and could have
   * removed the commit, its new trees or the session file's blob since they were written. A
   * stat per object, and only of what this process wrote since the last move.
   */
  async restoreUnsettled(): Promise<void> {
    this.flushStaged();
    if (this.unsettled.size > 0) await this.restoreMissing([...this.unsettled]);
  }

  /** Whether a ref move now would race a gc: this store wrote objects no ref reaches yet, and a gc runs. */
  async racesGc(gcRunning: () => Promise<boolean>): Promise<boolean> {
    return this.unsettled.size > 0 && (await gcRunning());
  }

  /**
   * After a ref moved: once no gc that may have walked the refs before the move is running,
   * every object written since the last settle is there again (one that gc pruned meanwhile is
   * written anew, the same bytes under the same oid). `waitForGc` waits the gc out.
   */
  async settle(waitForGc: () => Promise<boolean>): Promise<void> {
    this.flushStaged();
    if (this.unsettled.size === 0) return;
    const objects = [...this.unsettled];
    this.unsettled.clear();
    this.unsettledBytes = 0;
    await waitForGc();
    await this.restoreMissing(objects);
  }

  /**
   * Writes an object again from what this store still holds of it since its write (no ref has
   * reached it yet: a batch's blobs before their pin); false when it holds nothing of it.
   */
  private async rewriteHeld(oid: string): Promise<boolean> {
    const held = this.unsettled.get(oid);
    if (held === undefined) return false;
    await this.restoreMissing([[oid, held]]);
    return true;
  }

  /**
   * For an object this store wrote since the last ref move: on disk now (asked of the files),
   * or written again from what it holds; true either way. Written by this process, it needs no
   * freshening (its mtime is recent). False for any other object.
   */
  async ensureHeld(oid: string): Promise<boolean> {
    // Staged: written before any ref can name it (see stageWrites).
    if (this.staged?.has(oid)) return true;
    if (!this.unsettled.has(oid)) return false;
    if (!(await this.presentNow(oid))) await this.rewriteHeld(oid);
    return true;
  }

  /** Writes again, same bytes under the same oid, each of these objects that is not on disk now. */
  private async restoreMissing(objects: ReadonlyArray<[string, { type: ObjectType; content: Bytes }]>): Promise<void> {
    const packsSeen = new Set<string>();
    for (const [oid, { type, content }] of objects) {
      if (await this.presentNow(oid, packsSeen)) continue;
      const size = bytesLength(content);
      if (this.writesInParts(size)) {
        this.dirs[0]!.loose!.write(oid, this.deflatedRuns([objectHeader(type, size), ...runsOf(content)]));
        continue;
      }
      const framed = frameObject(type, joinBytes(content));
      if (this.syncFs) this.dirs[0]!.loose!.write(oid, this.zlib!.deflate(framed));
      else await this.writeAsync(oid, await this.platform.deflate(framed));
    }
  }

  /**
   * Whether the object is in the repository now, asked of the files themselves (not of a
   * listing that a concurrent gc may have made stale), touching it as git's freshen does.
   * The turn commit asks this of every object it publishes that it did not just write.
   */
  async freshen(oid: string): Promise<boolean> {
    if (!this.syncFs) return this.has(oid);
    this.flushStaged();
    if (this.freshenSync(oid)) return true;
    // A gc may have packed it into a pack we have not listed yet: list again, once.
    this.refresh();
    return this.freshenSync(oid, true);
  }

  /**
   * Packs a write found an object in and touched, in this listing: git freshens a pack once per
   * process (`p->freshened`), not once per object written that it holds (a merge's existing trees).
   * Only writes use it: what they write is held until a ref reaches it (restoreMissing checks the
   * files); `freshen` still touches the pack every time.
   */
  private readonly freshenedPacks = new WeakSet<PackReader>();

  /** `forWrite`: the caller writes the object when this says false (a listing may answer absent). */
  private freshenSync(oid: string, retried = false, forWrite = false): boolean {
    const raw = this.oidBytes(oid);
    for (const dir of this.dirs) {
      for (const pack of this.packsOf(dir)) {
        if (pack.index.find(raw) < 0) continue;
        if (forWrite && this.freshenedPacks.has(pack)) return true;
        if (this.touchPack(pack.packPath)) {
          if (forWrite) this.freshenedPacks.add(pack);
          return true;
        }
        // The pack is gone (git repacked since we listed it): list again, once.
        if (retried) return false;
        this.refresh();
        return this.freshenSync(oid, true, forWrite);
      }
    }
    for (const dir of this.dirs) if (dir.loose!.freshen(oid, forWrite)) return true;
    return false;
  }

  private touchPack(path: string): boolean {
    const fs = this.syncFs!;
    try {
      if (fs.utimesSync) {
        const now = Date.now() / 1000;
        fs.utimesSync(path, now, now);
        return true;
      }
      return fs.existsSync(path);
    } catch (error) {
      const code = errnoCode(error);
      return code !== 'ENOENT' && code !== 'ENOTDIR' && fs.existsSync(path);
    }
  }

  /** Full oids that start with an abbreviation (at most `limit`). */
  async findByPrefix(prefix: string, limit = 2): Promise<string[]> {
    if (!this.syncFs) {
      const found = await this.asyncObjects!.findByPrefix(prefix, limit);
      if (found.length > 0) return found;
      this.asyncObjects!.refresh();
      return this.asyncObjects!.findByPrefix(prefix, limit);
    }
    const find = () => {
      const found = new Set<string>();
      for (const oid of this.staged?.oids() ?? []) if (oid.startsWith(prefix)) found.add(oid);
      for (const dir of this.dirs) {
        for (const oid of dir.loose!.findByPrefix(prefix)) found.add(oid);
        for (const pack of this.packsOf(dir)) for (const oid of pack.index.findByPrefix(prefix, limit)) found.add(oid);
      }
      return [...found].slice(0, limit);
    };
    const found = find();
    if (found.length > 0) return found;
    // Another process may have written or repacked since we listed: look once more.
    this.refresh();
    return find();
  }

  close(): void {
    try {
      this.flushStaged();
    } catch {
      // Nothing on disk names a staged object (no ref moved onto it): losing them loses no data.
    }
    for (const dir of this.dirs) for (const pack of dir.packs ?? []) pack.close();
    this.asyncObjects?.refresh();
    this.baseCache.clear();
  }

  /**
   * Packs first (an in-memory index lookup), in every objects directory, then loose objects: git's
   * order. A packed repository's objects then cost no file system call before their pack read.
   */
  private readSync(oid: string, retried = false): RawObject | null {
    const hit = this.packed(this.oidBytes(oid));
    if (hit !== null) {
      try {
        return hit.pack.readAt(hit.position);
      } catch (error) {
        // git repacked (or gc'd) after we listed this pack and deleted it: list the packs again.
        if (errnoCode(error) !== 'ENOENT' || retried) throw toForgeError(error);
        this.refresh();
        return this.readSync(oid, true);
      }
    }
    for (const dir of this.dirs) {
      const loose = dir.loose!.read(oid);
      if (loose) return loose;
    }
    if (retried) return null;
    // Another process may have written or repacked since we listed: look once more.
    this.refresh();
    return this.readSync(oid, true);
  }

  /** The first listed pack (alternates included) that holds the object, and its position there. */
  private packed(raw: Uint8Array): { pack: PackReader; position: number } | null {
    for (const dir of this.dirs) {
      for (const pack of this.packsOf(dir)) {
        const position = pack.index.find(raw);
        if (position >= 0) return { pack, position };
      }
    }
    return null;
  }

  private hasSync(oid: string): boolean {
    const raw = this.oidBytes(oid);
    for (const dir of this.dirs) for (const pack of this.packsOf(dir)) if (pack.index.find(raw) >= 0) return true;
    for (const dir of this.dirs) if (dir.loose!.has(oid)) return true;
    return false;
  }

  /** Native where the platform has it: a byte loop per lookup costs more in a cold process. */
  private oidBytes(oid: string): Uint8Array {
    return this.platform.text?.hexToBytes(oid) ?? fromHex(oid);
  }

  private refresh(): void {
    for (const dir of this.dirs) {
      dir.loose?.invalidate();
      for (const pack of dir.packs ?? []) pack.close();
      dir.packs = null;
    }
  }

  private packsOf(dir: ObjectDir): PackReader[] {
    if (dir.packs) return dir.packs;
    const packDir = joinPath(dir.path, 'pack');
    let names: string[] = [];
    try {
      names = this.syncFs!.readdirSync(packDir);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
    }
    const packs: PackReader[] = [];
    for (const name of names.filter((n) => n.endsWith('.idx')).sort()) {
      const idxPath = joinPath(packDir, name);
      const packPath = idxPath.slice(0, -4) + '.pack';
      if (!names.includes(name.slice(0, -4) + '.pack')) continue;
      const index = openIndexLazily(this.syncFs!, idxPath);
      packs.push(new PackReader(index, packPath, this.syncFs!, this.zlib!, this.baseCache, (oid) => this.readSync(oid)));
    }
    dir.packs = packs;
    return packs;
  }

  private async writeAsync(oid: string, compressed: Uint8Array): Promise<void> {
    const dir = joinPath(this.dirs[0]!.path, oid.slice(0, 2));
    // Beside the fan-out directories, as the sync path does (see loose-objects.ts).
    const tmp = joinPath(this.dirs[0]!.path, tempObjectName());
    try {
      await this.fs.promises.writeFile(tmp, compressed);
      if (this.fs.promises.chmod) await this.fs.promises.chmod(tmp, 0o444);
      await mkdirp(this.fs, dir);
      await this.fs.promises.rename(tmp, joinPath(dir, oid.slice(2)));
    } catch (error) {
      await this.fs.promises.unlink(tmp).catch(() => undefined);
      throw objectWriteError(oid, error);
    }
  }

  private async readAsync(oid: string): Promise<RawObject> {
    const found = await this.asyncObjects!.read(oid);
    if (found === null) throw notFound(oid);
    return found;
  }
}

/** A pack index read bucket by bucket through one descriptor, opened again if closed (see pack-index.ts). */
function openIndexLazily(fs: FsSync, path: string): PackIndex {
  let fd: number | null = fs.openSync(path, 'r');
  const size = fs.fstatSync(fd).size;
  const readRange = (offset: number, length: number): Uint8Array => {
    fd ??= fs.openSync(path, 'r');
    const buffer = new Uint8Array(Math.max(0, Math.min(length, size - offset)));
    let done = 0;
    while (done < buffer.length) {
      const got = fs.readSync(fd, buffer, done, buffer.length - done, offset + done);
      if (got === 0) break;
      done += got;
    }
    return done === buffer.length ? buffer : buffer.subarray(0, done);
  };
  const close = () => {
    if (fd !== null) fs.closeSync(fd);
    fd = null;
  };
  try {
    return PackIndex.open(path, size, readRange, close);
  } catch (error) {
    close();
    throw error;
  }
}

function notFound(oid: string): ForgeError {
  return new ForgeError('OBJECT_NOT_FOUND', `Object ${oid} is not in the repository.`, { data: { oid } });
}

function contentOfType(object: RawObject, oid: string, type: ObjectType): Uint8Array {
  if (object.type !== type) {
    throw new ForgeError('OBJECT_TYPE_MISMATCH', `Object ${oid} is a ${object.type}, not a ${type}.`, { data: { oid, expected: type, actual: object.type } });
  }
  return object.content;
}
