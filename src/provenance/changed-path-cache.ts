/**
 * The changed-path filters of commits (git/changed-path-filter.ts), kept on disk under
 * `<commondir>/forge/cache/changed-paths/` so that a later `forge why`/`forge blame` skips the
 * commits that did not touch its file without reading their trees, as git's commit-graph Bloom
 * filters let `git blame` do. Built lazily: a walk computes the filters of the commits it visits
 * and writes the new ones as one more segment file; more than `MAX_SEGMENTS` are merged into one.
 * A filter depends only on its commit (and so its first parent), so an entry is never stale.
 * Derived data: a segment that is missing, unreadable, or fails its checksum is ignored (and
 * removed), and its filters are computed again; a filter is never trusted from damaged bytes.
 *
 * Like git's commit-graph, a record also holds the commit's tree, parents and committer time, so
 * that a walk through commits it skips reads no commit object either.
 *
 * Segment format 1: `FORGECPF` and a version byte 1, the record count (u32 LE), then per record
 * the raw commit oid and tree oid (20 bytes each), the committer time (f64 LE), the parent count
 * (u8) and the raw parent oids, the filter's length (u16 LE; 0xffff: no filter, everything may
 * have changed) and its bytes; then murmur3 (seed 0) of all bytes before it (u32 LE).
 */
import { errnoCode, fromHex, joinPath, mkdirp, toHex, type GitFs } from '../git';
import { murmur3, type ChangedPathFilter } from '../git/changed-path-filter';

const MAGIC = new TextEncoder().encode('FORGECPF');
const VERSION = 1;
const NO_FILTER = 0xffff;
const MAX_SEGMENTS = 8;
const SEGMENT_NAME = /^[0-9a-z]{6,40}\.cpf$/;

/** What is kept of one commit: its links (as `Repository.readCommitLinks`) and its filter. */
export interface CommitRecord {
  tree: string;
  parents: string[];
  time: number;
  filter: ChangedPathFilter;
}

/**
 * Where each record of a segment starts, by commit oid (only the oids are decoded: a walk looks
 * at a few thousand of them), or null when the bytes are not a whole, checksummed segment.
 */
export function indexSegment(bytes: Uint8Array, hex: (bytes: Uint8Array) => string = toHex): Map<string, number> | null {
  if (bytes.length < MAGIC.length + 1 + 4 + 4) return null;
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC[i]) return null;
  if (bytes[MAGIC.length] !== VERSION) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const body = bytes.length - 4;
  if (murmur3(0, bytes.subarray(0, body)) !== view.getUint32(body, true)) return null;
  const count = view.getUint32(MAGIC.length + 1, true);
  const out = new Map<string, number>();
  let at = MAGIC.length + 5;
  for (let i = 0; i < count; i++) {
    if (at + 49 > body) return null;
    out.set(hex(bytes.subarray(at, at + 20)), at);
    at += 49 + bytes[at + 48]! * 20;
    if (at + 2 > body) return null;
    const length = view.getUint16(at, true);
    at += 2;
    if (length !== NO_FILTER) {
      if (length === 0) return null;
      at += length;
    }
  }
  return at === body ? out : null;
}

/** The record at `at` of a segment `indexSegment` accepted. */
export function recordAt(bytes: Uint8Array, at: number, hex: (bytes: Uint8Array) => string = toHex): CommitRecord {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tree = hex(bytes.subarray(at + 20, at + 40));
  const time = view.getFloat64(at + 40, true);
  const parentCount = bytes[at + 48]!;
  at += 49;
  const parents: string[] = [];
  for (let p = 0; p < parentCount; p++, at += 20) parents.push(hex(bytes.subarray(at, at + 20)));
  const length = view.getUint16(at, true);
  at += 2;
  return { tree, parents, time, filter: length === NO_FILTER ? null : bytes.subarray(at, at + length) };
}

/** Every record of a segment, or null when it is damaged. */
export function decodeSegment(bytes: Uint8Array, hex: (bytes: Uint8Array) => string = toHex): Map<string, CommitRecord> | null {
  const index = indexSegment(bytes, hex);
  return index && new Map([...index].map(([oid, at]) => [oid, recordAt(bytes, at, hex)]));
}

export function encodeSegment(records: ReadonlyMap<string, CommitRecord>): Uint8Array {
  let size = MAGIC.length + 5 + 4;
  for (const r of records.values()) size += 49 + r.parents.length * 20 + 2 + (r.filter?.length ?? 0);
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  bytes[MAGIC.length] = VERSION;
  view.setUint32(MAGIC.length + 1, records.size, true);
  let at = MAGIC.length + 5;
  for (const [oid, r] of records) {
    fromHex(oid, bytes, at);
    fromHex(r.tree, bytes, at + 20);
    view.setFloat64(at + 40, r.time, true);
    bytes[at + 48] = r.parents.length;
    at += 49;
    for (const parent of r.parents) {
      fromHex(parent, bytes, at);
      at += 20;
    }
    view.setUint16(at, r.filter === null ? NO_FILTER : r.filter.length, true);
    at += 2;
    if (r.filter !== null) {
      bytes.set(r.filter, at);
      at += r.filter.length;
    }
  }
  view.setUint32(at, murmur3(0, bytes.subarray(0, at)), true);
  return bytes;
}

export class ChangedPathCache {
  private readonly dir: string;
  private readonly records = new Map<string, CommitRecord>();
  /** Records on disk not decoded yet: their segment's bytes and offset. */
  private readonly stored = new Map<string, { bytes: Uint8Array; at: number }>();
  private readonly fresh = new Map<string, CommitRecord>();
  private segments: string[] = [];
  private damaged: string[] = [];
  private loaded: Promise<void> | null = null;

  constructor(
    private readonly fs: GitFs,
    commonDir: string,
    /** Bytes to hex: the platform's native one where it has it (5x faster than toHex here). */
    private readonly hex: (bytes: Uint8Array) => string = toHex,
  ) {
    this.dir = joinPath(commonDir, 'forge', 'cache', 'changed-paths');
  }

  /** Reads every segment once; damaged ones are set aside to be removed on the next save. */
  load(): Promise<void> {
    this.loaded ??= this.readSegments();
    return this.loaded;
  }

  private async readSegments(): Promise<void> {
    let names: string[];
    try {
      names = (await this.fs.promises.readdir(this.dir)).filter((n) => SEGMENT_NAME.test(n)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      let bytes: Uint8Array | null = null;
      let index: Map<string, number> | null = null;
      try {
        bytes = await this.fs.promises.readFile(joinPath(this.dir, name));
        index = indexSegment(bytes, this.hex);
      } catch {
        index = null;
      }
      if (index === null || bytes === null) {
        this.damaged.push(name);
        continue;
      }
      this.segments.push(name);
      for (const [oid, at] of index) this.stored.set(oid, { bytes, at });
    }
  }

  /** The commit's record; undefined when none is stored (its filter null: too many changes to filter). */
  get(commit: string): CommitRecord | undefined {
    let record = this.records.get(commit);
    if (record === undefined) {
      const stored = this.stored.get(commit);
      if (stored === undefined) return undefined;
      record = recordAt(stored.bytes, stored.at, this.hex);
      this.records.set(commit, record);
    }
    return record;
  }

  /** Keeps a record (one with more than 255 parents is not kept: a u8 counts them). */
  put(commit: string, record: CommitRecord): void {
    if (this.records.has(commit) || this.stored.has(commit) || record.parents.length > 255) return;
    this.records.set(commit, record);
    this.fresh.set(commit, record);
  }

  /** How many filters were computed since the load and not yet saved. */
  get unsaved(): number {
    return this.fresh.size;
  }

  /** Writes the new filters as a segment (all of them as one, past MAX_SEGMENTS). Best effort. */
  async save(): Promise<void> {
    if (this.fresh.size === 0 && this.damaged.length === 0) return;
    try {
      await mkdirp(this.fs, this.dir);
      const merged = this.fresh.size > 0 && this.segments.length + 1 > MAX_SEGMENTS ? [...this.segments] : [];
      if (this.fresh.size > 0) await this.write(merged.length > 0 ? this.everything() : this.fresh);
      this.fresh.clear();
      const obsolete = [...this.damaged, ...merged];
      this.damaged = [];
      this.segments = this.segments.filter((n) => !merged.includes(n));
      for (const name of obsolete) await this.fs.promises.unlink(joinPath(this.dir, name)).catch(() => undefined);
    } catch (error) {
      if (errnoCode(error) === undefined) throw error;
    }
  }

  private everything(): Map<string, CommitRecord> {
    const all = new Map<string, CommitRecord>();
    for (const oid of this.stored.keys()) all.set(oid, this.get(oid)!);
    for (const [oid, record] of this.records) all.set(oid, record);
    return all;
  }

  private async write(records: ReadonlyMap<string, CommitRecord>): Promise<void> {
    const name = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}.cpf`;
    const path = joinPath(this.dir, name);
    const tmp = `${path}.tmp`;
    try {
      await this.fs.promises.writeFile(tmp, encodeSegment(records));
      await this.fs.promises.rename(tmp, path);
      this.segments.push(name);
    } catch (error) {
      await this.fs.promises.unlink(tmp).catch(() => undefined);
      throw error;
    }
  }
}
