/**
 * The object database: loose objects and packs (and alternates) under `objects/`.
 * Reads go through our own pack reader when the fs and platform allow synchronous random
 * access, else through isomorphic-git. Writes are crash-safe: deflate into a temporary file in
 * the object's directory, then rename, so a killed process never leaves a corrupt object.
 */
import { ForgeError, toForgeError } from '../errors';
import { errnoCode, hasSyncApi, joinPath, type FsSync, type GitFs } from './fs';
import { frameObject, unframeObject, type ObjectType } from './object-codec';
import { PackIndex } from './pack-index';
import { createDeltaBaseCache, PackReader, type DeltaBaseCache, type RawObject } from './pack-reader';
import { fromHex, type GitPlatform, type SyncPlatform } from './platform';

export type { RawObject };

interface ObjectDir {
  path: string;
  packs: PackReader[] | null;
}

let tmpCounter = 0;

export class ObjectStore {
  private readonly dirs: ObjectDir[];
  private readonly syncFs: (GitFs & FsSync) | null;
  private readonly zlib: SyncPlatform | null;
  private readonly baseCache: DeltaBaseCache = createDeltaBaseCache();
  /** isomorphic-git's cache object, reused by every fallback call (its pack cache lives there). */
  private readonly isoCache: object = {};

  constructor(
    private readonly fs: GitFs,
    private readonly gitdir: string,
    private readonly platform: GitPlatform,
    alternates: string[] = [],
  ) {
    this.dirs = [joinPath(gitdir, 'objects'), ...alternates].map((path) => ({ path, packs: null }));
    this.syncFs = hasSyncApi(fs) && platform.sync ? fs : null;
    this.zlib = this.syncFs ? platform.sync! : null;
  }

  /** Whether reads use the positional pack reader (false: the isomorphic-git fallback). */
  get fastPath(): boolean {
    return this.syncFs !== null;
  }

  async read(oid: string): Promise<RawObject> {
    if (this.syncFs) {
      const found = this.readSync(oid);
      if (found) return found;
      throw notFound(oid);
    }
    return this.readViaIsomorphicGit(oid);
  }

  async readTyped(oid: string, type: ObjectType): Promise<Uint8Array> {
    const object = await this.read(oid);
    if (object.type !== type) {
      throw new ForgeError('OBJECT_TYPE_MISMATCH', `Object ${oid} is a ${object.type}, not a ${type}.`, { data: { oid, expected: type, actual: object.type } });
    }
    return object.content;
  }

  async has(oid: string): Promise<boolean> {
    if (this.syncFs) return this.hasSync(oid);
    try {
      await this.readViaIsomorphicGit(oid);
      return true;
    } catch (error) {
      if (error instanceof ForgeError && error.code === 'OBJECT_NOT_FOUND') return false;
      throw error;
    }
  }

  /** Writes an object (if absent) and returns its oid. */
  async write(type: ObjectType, content: Uint8Array): Promise<string> {
    const framed = frameObject(type, content);
    const oid = this.platform.sync ? this.platform.sync.sha1Hex(framed) : await this.platform.sha1Hex(framed);
    if (await this.has(oid)) return oid;
    const compressed = this.platform.sync ? this.platform.sync.deflate(framed) : await this.platform.deflate(framed);
    const dir = joinPath(this.dirs[0]!.path, oid.slice(0, 2));
    const final = joinPath(dir, oid.slice(2));
    // tmp_obj_* is the name git itself uses, so `git gc` cleans up after a crash.
    const tmp = joinPath(dir, `tmp_obj_${Date.now().toString(36)}${(tmpCounter++).toString(36)}${Math.random().toString(36).slice(2, 8)}`);
    try {
      await this.fs.promises.mkdir(dir, { recursive: true }).catch((error: unknown) => {
        if (errnoCode(error) !== 'EEXIST') throw error;
      });
      // Written, then made read-only as git leaves loose objects: creating the file with mode
      // 0o444 fails on memfs, which checks the new file's permissions before writing to it.
      await this.fs.promises.writeFile(tmp, compressed);
      if (this.fs.promises.chmod) await this.fs.promises.chmod(tmp, 0o444);
      await this.fs.promises.rename(tmp, final);
    } catch (error) {
      await this.fs.promises.unlink(tmp).catch(() => undefined);
      throw new ForgeError('INTERNAL', `Could not write object ${oid}: ${(error as Error).message}`, { cause: error, data: { oid } });
    }
    return oid;
  }

  /** Full oids that start with an abbreviation (at most `limit`). */
  async findByPrefix(prefix: string, limit = 2): Promise<string[]> {
    const found = new Set<string>();
    for (const dir of this.dirs) {
      try {
        for (const name of await this.fs.promises.readdir(joinPath(dir.path, prefix.slice(0, 2)))) {
          const oid = prefix.slice(0, 2) + name;
          if (/^[0-9a-f]{40}$/.test(oid) && oid.startsWith(prefix)) found.add(oid);
        }
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
      }
      for (const pack of await this.packsOf(dir)) for (const oid of pack.index.findByPrefix(prefix, limit)) found.add(oid);
    }
    if (!this.syncFs && found.size === 0) {
      const git = await import('isomorphic-git');
      try {
        found.add(await git.expandOid({ fs: this.fs as never, gitdir: this.gitdir, oid: prefix, cache: this.isoCache }));
      } catch (error) {
        if ((error as { code?: string }).code === 'AmbiguousError') return [prefix + '?', prefix + '??'];
      }
    }
    return [...found].slice(0, limit);
  }

  close(): void {
    for (const dir of this.dirs) for (const pack of dir.packs ?? []) pack.close();
    this.baseCache.clear();
  }

  private readSync(oid: string, rescanned = false): RawObject | null {
    const raw = fromHex(oid);
    for (const dir of this.dirs) {
      const loose = this.readLooseSync(dir.path, oid);
      if (loose) return loose;
      for (const pack of this.packsOfSync(dir)) {
        const position = pack.index.find(raw);
        if (position < 0) continue;
        try {
          return pack.readAt(position);
        } catch (error) {
          // git repacked (or gc'd) after we listed this pack and deleted it: list the packs again.
          if (errnoCode(error) !== 'ENOENT' || rescanned) throw toForgeError(error);
          this.forgetPacks();
          return this.readSync(oid, true);
        }
      }
    }
    if (!rescanned) {
      // git may have repacked since we listed the packs: look once more.
      this.forgetPacks();
      return this.readSync(oid, true);
    }
    return null;
  }

  private forgetPacks(): void {
    for (const dir of this.dirs) {
      for (const pack of dir.packs ?? []) pack.close();
      dir.packs = null;
    }
  }

  private hasSync(oid: string): boolean {
    const raw = fromHex(oid);
    for (const dir of this.dirs) {
      if (this.syncFs!.existsSync(joinPath(dir.path, oid.slice(0, 2), oid.slice(2)))) return true;
      for (const pack of this.packsOfSync(dir)) if (pack.index.find(raw) >= 0) return true;
    }
    return false;
  }

  private readLooseSync(objectsDir: string, oid: string): RawObject | null {
    let compressed: Uint8Array;
    try {
      compressed = this.syncFs!.readFileSync(joinPath(objectsDir, oid.slice(0, 2), oid.slice(2)));
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw toForgeError(error);
    }
    let inflated: Uint8Array;
    try {
      inflated = this.zlib!.inflate(compressed);
    } catch (error) {
      throw new ForgeError('OBJECT_CORRUPT', `Loose object ${oid} cannot be inflated: ${(error as Error).message}`, { data: { oid } });
    }
    return toRaw(unframeObject(inflated, oid));
  }

  private packsOfSync(dir: ObjectDir): PackReader[] {
    if (dir.packs) return dir.packs;
    const packDir = joinPath(dir.path, 'pack');
    let names: string[] = [];
    try {
      names = this.syncFs!.readdirSync(packDir);
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
    }
    dir.packs = this.openPacks(packDir, names, (path) => this.syncFs!.readFileSync(path));
    return dir.packs;
  }

  private async packsOf(dir: ObjectDir): Promise<PackReader[]> {
    return this.syncFs ? this.packsOfSync(dir) : [];
  }

  private openPacks(packDir: string, names: string[], readFile: (path: string) => Uint8Array): PackReader[] {
    const packs: PackReader[] = [];
    for (const name of names.filter((n) => n.endsWith('.idx')).sort()) {
      const idxPath = joinPath(packDir, name);
      const packPath = idxPath.slice(0, -4) + '.pack';
      if (!this.syncFs!.existsSync(packPath)) continue;
      const index = new PackIndex(readFile(idxPath), idxPath);
      packs.push(new PackReader(index, packPath, this.syncFs!, this.zlib!, this.baseCache, (oid) => this.readSync(oid)));
    }
    return packs;
  }

  private async readViaIsomorphicGit(oid: string): Promise<RawObject> {
    const git = await import('isomorphic-git');
    try {
      const result = await git.readObject({ fs: this.fs as never, gitdir: this.gitdir, oid, format: 'content', cache: this.isoCache });
      return { type: result.type as ObjectType, content: result.object as Uint8Array };
    } catch (error) {
      if ((error as { code?: string }).code === 'NotFoundError') throw notFound(oid);
      throw toForgeError(error);
    }
  }
}

function toRaw(object: { type: ObjectType; content: Uint8Array }): RawObject {
  return { type: object.type, content: object.content };
}

function notFound(oid: string): ForgeError {
  return new ForgeError('OBJECT_NOT_FOUND', `Object ${oid} is not in the repository.`, { data: { oid } });
}
