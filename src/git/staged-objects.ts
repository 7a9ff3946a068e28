/**
 * New objects held in memory while a batch runs (a `forge turn`: none of its calls is
 * acknowledged before it exits), then written together: as ONE pack and its index when there are
 * enough of them, else loose. A thousand loose writes cost a thousand create/write/rename (and a
 * `mkdir` per new fan-out directory); a pack costs two files. The object store writes them before
 * anything could name them on disk (before a ref moves, before it answers whether one is
 * present): see ObjectStore.stageWrites.
 */
import { joinBytes } from './byte-runs';
import { joinPath, errnoCode, type FsSync } from './fs';
import { objectWriteError, tempObjectName } from './loose-objects';
import type { ObjectType } from './object-codec';
import { encodePack } from './pack-encode';
import { fromHex, type SyncPlatform } from './platform';

/** Fewer objects than this go loose: git's own `transfer.unpackLimit` (a fetch of fewer is exploded). */
export const PACK_MIN_OBJECTS = 100;

export interface StagedObject {
  type: ObjectType;
  content: Uint8Array;
}

export class StagedObjects {
  private objects = new Map<string, StagedObject>();
  /** Content bytes held. */
  bytes = 0;

  get size(): number {
    return this.objects.size;
  }

  get(oid: string): StagedObject | undefined {
    return this.objects.get(oid);
  }

  has(oid: string): boolean {
    return this.objects.has(oid);
  }

  add(oid: string, object: StagedObject): void {
    if (this.objects.has(oid)) return;
    this.objects.set(oid, object);
    this.bytes += object.content.length;
  }

  oids(): IterableIterator<string> {
    return this.objects.keys();
  }

  /** What is held, in the order written; the set is emptied (the caller writes them). */
  entries(): Array<[string, StagedObject]> {
    return [...this.objects];
  }

  clear(): void {
    this.objects = new Map();
    this.bytes = 0;
  }
}

/**
 * Writes the objects as `objects/pack/pack-<checksum>.pack` and `.idx`, each through a temporary
 * file (`tmp_pack_*`, `tmp_idx_*`: names git's prune removes when a killed writer leaves them).
 * The pack is renamed into place first, its index last (git's order): readers find a pack by its
 * index, so a process killed in between leaves an unused file, never an index without its pack.
 * Returns the index (its bytes: its writer need not read it back) and the pack's path.
 */
export function writePackFiles(fs: FsSync, objectsDir: string, zlib: SyncPlatform, objects: ReadonlyArray<[string, StagedObject]>): { indexPath: string; packPath: string; index: Uint8Array } {
  const sha1 = (runs: readonly Uint8Array[]): Uint8Array => fromHex(zlib.sha1HexParts ? zlib.sha1HexParts(runs) : zlib.sha1Hex(joinBytes(runs)));
  const entries = objects.map(([oid, { type, content }]) => ({ oid: fromHex(oid), type, content }));
  const { pack, index, checksum } = encodePack(entries, (content) => zlib.deflate(content), sha1);
  const dir = joinPath(objectsDir, 'pack');
  const packPath = joinPath(dir, `pack-${checksum}.pack`);
  const indexPath = joinPath(dir, `pack-${checksum}.idx`);
  const name = tempObjectName().slice('tmp_obj_'.length);
  const tmpPack = joinPath(dir, `tmp_pack_${name}`);
  const tmpIndex = joinPath(dir, `tmp_idx_${name}`);
  try {
    writeReadOnly(fs, dir, tmpPack, pack);
    writeReadOnly(fs, dir, tmpIndex, index);
    fs.renameSync(tmpPack, packPath);
    fs.renameSync(tmpIndex, indexPath);
  } catch (error) {
    for (const tmp of [tmpPack, tmpIndex]) {
      try {
        fs.unlinkSync(tmp);
      } catch {
        // Never created, or renamed already.
      }
    }
    throw objectWriteError(objects[0]?.[0] ?? '', error);
  }
  return { indexPath, packPath, index };
}

/** Read-only as git leaves packs; the directory made when a repository has none yet. */
function writeReadOnly(fs: FsSync, dir: string, path: string, data: Uint8Array): void {
  try {
    fs.writeFileSync(path, data);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path, data);
  }
  fs.chmodSync(path, 0o444);
}
