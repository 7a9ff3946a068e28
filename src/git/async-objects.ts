/**
 * The object store's reads over an fs with only the promise API (a browser's lightning-fs) and a
 * platform with only async zlib and sha1 (WebCrypto, CompressionStream): packs by offset
 * (async-pack-reader.ts), then loose objects, in every objects directory, git's order. Plain
 * Uint8Array throughout: nothing here needs Node's Buffer.
 * The pack listing is kept; a miss everywhere lists the packs again once (another writer may
 * have repacked or fetched since), re-reading only the indexes of packs not seen before.
 */
import { ForgeError, toForgeError } from '../errors';
import { AsyncPackReader } from './async-pack-reader';
import { errnoCode, joinPath, type GitFs } from './fs';
import { unframeObject } from './object-codec';
import { PackIndex } from './pack-index';
import type { DeltaBaseCache, RawObject } from './pack-reader';
import { fromHex, type GitPlatform } from './platform';

const OID = /^[0-9a-f]{40}$/;

export class AsyncObjects {
  private packs: Promise<AsyncPackReader[]> | null = null;
  /** Readers by `.idx` path, kept across re-listings: a pack never changes under its name. */
  private readonly known = new Map<string, AsyncPackReader>();

  constructor(
    private readonly fs: GitFs,
    /** The `objects` directories: the repository's own, then its alternates. */
    private readonly dirs: readonly string[],
    private readonly platform: GitPlatform,
    private readonly baseCache: DeltaBaseCache,
  ) {}

  /** The object, or null when no pack and no loose file holds it (after looking twice). */
  async read(oid: string, retried = false): Promise<RawObject | null> {
    const raw = fromHex(oid);
    for (const pack of await this.listPacks()) {
      const position = pack.index.find(raw);
      if (position < 0) continue;
      try {
        return await pack.readAt(position);
      } catch (error) {
        // Repacked away since we listed it: list again.
        if (errnoCode(error) !== 'ENOENT' || retried) throw toForgeError(error);
        this.refresh();
        return this.read(oid, true);
      }
    }
    for (const dir of this.dirs) {
      const loose = await this.readLoose(dir, oid);
      if (loose !== null) return loose;
    }
    if (retried) return null;
    this.refresh();
    return this.read(oid, true);
  }

  async has(oid: string, retried = false): Promise<boolean> {
    const raw = fromHex(oid);
    for (const pack of await this.listPacks()) if (pack.index.find(raw) >= 0) return true;
    for (const dir of this.dirs) if (await this.exists(joinPath(dir, oid.slice(0, 2), oid.slice(2)))) return true;
    if (retried) return false;
    this.refresh();
    return this.has(oid, true);
  }

  /** Full oids that start with an abbreviation (at most `limit`). */
  async findByPrefix(prefix: string, limit: number): Promise<string[]> {
    const found = new Set<string>();
    for (const pack of await this.listPacks()) for (const oid of pack.index.findByPrefix(prefix, limit)) found.add(oid);
    const fan = prefix.slice(0, 2);
    for (const dir of this.dirs) {
      for (const name of await this.readdir(joinPath(dir, fan))) {
        const oid = fan + name;
        if (OID.test(oid) && oid.startsWith(prefix)) found.add(oid);
      }
    }
    return [...found].slice(0, limit);
  }

  refresh(): void {
    this.packs = null;
  }

  private async readLoose(dir: string, oid: string): Promise<RawObject | null> {
    let compressed: Uint8Array;
    try {
      compressed = await this.fs.promises.readFile(joinPath(dir, oid.slice(0, 2), oid.slice(2)));
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw toForgeError(error);
    }
    let inflated: Uint8Array;
    try {
      inflated = await this.platform.inflate(compressed);
    } catch (error) {
      throw new ForgeError('OBJECT_CORRUPT', `Loose object ${oid} cannot be inflated: ${(error as Error).message}`, { data: { oid } });
    }
    return unframeObject(inflated, oid);
  }

  private listPacks(): Promise<AsyncPackReader[]> {
    this.packs ??= this.loadPacks().catch((error: unknown) => {
      this.packs = null;
      throw error;
    });
    return this.packs;
  }

  private async loadPacks(): Promise<AsyncPackReader[]> {
    const readers: AsyncPackReader[] = [];
    const readWhole = (path: string) => this.fs.promises.readFile(path);
    for (const dir of this.dirs) {
      const packDir = joinPath(dir, 'pack');
      const names = await this.readdir(packDir);
      for (const name of names.filter((n) => n.endsWith('.idx')).sort()) {
        if (!names.includes(name.slice(0, -4) + '.pack')) continue;
        const idxPath = joinPath(packDir, name);
        let reader = this.known.get(idxPath);
        if (reader === undefined) {
          const index = new PackIndex(await this.fs.promises.readFile(idxPath), idxPath);
          reader = new AsyncPackReader(index, idxPath.slice(0, -4) + '.pack', readWhole, this.platform, this.baseCache, (oid) => this.read(oid));
          this.known.set(idxPath, reader);
        }
        readers.push(reader);
      }
    }
    // Forget packs that were deleted (repacked into others): their bytes would stay in memory.
    for (const [path, reader] of this.known) if (!readers.includes(reader)) this.known.delete(path);
    return readers;
  }

  private async readdir(path: string): Promise<string[]> {
    try {
      return await this.fs.promises.readdir(path);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw toForgeError(error);
    }
  }

  private async exists(path: string): Promise<boolean> {
    try {
      await this.fs.promises.lstat(path);
      return true;
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw toForgeError(error);
    }
  }
}
