/**
 * Unpacks a received packfile into memory, as `git index-pack` does before anything is stored:
 * every entry inflated (never past its declared size), deltas (by offset or by base oid, the
 * base in the pack or already in the store) resolved, the trailing checksum verified. The
 * result is a quarantine: nothing reaches the object store here (received-objects.ts checks the
 * objects and only then stores them), so a damaged, hostile or cut pack leaves the store as it was.
 *
 * Bombs are refused before memory is spent: an entry's declared size, and a delta's declared
 * result, are checked against the per-object limit before inflating or allocating; a delta's
 * result cannot be larger than its instructions can produce; the inflater stops one byte past the
 * declared size; and the whole pack, and the sum of what it unpacks to, are capped.
 */
import { ForgeError } from '../errors';
import type { ObjectType, Repository } from '../git';
import { applyDelta, deltaSizes, maxDeltaResult } from '../git/delta';
import { parseEntryHeader } from '../git/pack-entry';
import { frameObject } from '../git/object-codec';

/**
 * Inflates the zlib stream at `offset`, which must give exactly `size` bytes; must not produce
 * more than `size + 1` bytes whatever the stream holds (a liar is detected, not inflated).
 * Reports the compressed length.
 */
export type StreamInflater = (data: Uint8Array, offset: number, size: number) => { content: Uint8Array; consumed: number };

export interface UnpackLimits {
  /** The largest object (or delta) one entry may declare (forge.maxObjectSize). */
  maxObjectBytes: number;
  /** The largest pack, and the most bytes its objects may unpack to in all (forge.maxPackSize). */
  maxPackBytes: number;
}

/** GitHub refuses files over 100 MiB: a session's objects are far below that. */
export const DEFAULT_UNPACK_LIMITS: UnpackLimits = { maxObjectBytes: 100 * 1024 * 1024, maxPackBytes: 1024 * 1024 * 1024 };

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;

interface Entry {
  offset: number;
  type?: ObjectType;
  content: Uint8Array;
  baseOffset?: number;
  baseOid?: string;
}

/** Received objects not yet stored, by oid. */
export type Quarantine = Map<string, { type: ObjectType; content: Uint8Array }>;

function invalid(remote: string, detail: string): ForgeError {
  return new ForgeError('REMOTE_PACK_INVALID', `The pack received from ${remote} is not valid: ${detail}. Nothing was stored and no ref moved.`, {
    data: { remote },
    hint: 'Retry the fetch; if it fails again, the remote repository (or something between) is damaged.',
  });
}

function tooLarge(remote: string, detail: string, limits: UnpackLimits): ForgeError {
  return new ForgeError('REMOTE_PACK_TOO_LARGE', `The pack received from ${remote} is refused: ${detail}. Nothing was stored and no ref moved.`, {
    data: { remote, maxObjectBytes: limits.maxObjectBytes, maxPackBytes: limits.maxPackBytes },
    hint: 'If the remote really holds objects this large, raise the limit: git config forge.maxObjectSize 500m (or forge.maxPackSize 4g).',
  });
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export async function unpackToQuarantine(repo: Repository, pack: Uint8Array, inflate: StreamInflater, remote: string, limits: UnpackLimits = DEFAULT_UNPACK_LIMITS): Promise<Quarantine> {
  const quarantine: Quarantine = new Map();
  if (pack.length === 0) return quarantine;
  if (pack.length > limits.maxPackBytes) throw tooLarge(remote, `it is ${pack.length} bytes, over the limit of ${limits.maxPackBytes}`, limits);
  if (pack.length < 32 || pack[0] !== 0x50 || pack[1] !== 0x41 || pack[2] !== 0x43 || pack[3] !== 0x4b) throw invalid(remote, 'no PACK signature');
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw invalid(remote, `pack version ${version}`);
  const count = view.getUint32(8);
  const expected = hex(pack.subarray(pack.length - 20));
  const actual = await repo.platform.sha1Hex(pack.subarray(0, pack.length - 20));
  if (actual !== expected) throw invalid(remote, 'its checksum does not match (truncated or damaged in transit)');
  // Every entry takes at least 2 bytes (a header byte and a zlib stream's): a count beyond that is a lie.
  if (count > (pack.length - 32) / 2) throw invalid(remote, `it declares ${count} entries in ${pack.length} bytes`);

  let unpacked = 0;
  const spend = (bytes: number, what: string) => {
    if (bytes > limits.maxObjectBytes) throw tooLarge(remote, `${what} declares ${bytes} bytes, over the per-object limit of ${limits.maxObjectBytes}`, limits);
    unpacked += bytes;
    if (unpacked > limits.maxPackBytes) throw tooLarge(remote, `its objects unpack to more than the limit of ${limits.maxPackBytes} bytes`, limits);
  };

  const entries: Entry[] = [];
  const byOffset = new Map<number, Entry>();
  const end = pack.length - 20;
  let at = 12;
  for (let i = 0; i < count; i++) {
    const offset = at;
    if (at >= end) throw invalid(remote, `entry ${i} starts past the end`);
    const { typeCode, size, length } = parseEntryHeader(pack, at);
    at += length;
    const entry: Entry = { offset, content: new Uint8Array(0) };
    if (typeCode === OFS_DELTA) {
      let byte = pack[at++]!;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = pack[at++]!;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      entry.baseOffset = offset - distance;
    } else if (typeCode === REF_DELTA) {
      entry.baseOid = hex(pack.subarray(at, at + 20));
      at += 20;
    } else if (TYPES[typeCode]) {
      entry.type = TYPES[typeCode];
    } else {
      throw invalid(remote, `an entry of unknown type ${typeCode} at offset ${offset}`);
    }
    if (at >= end) throw invalid(remote, `entry ${i} runs past the end`);
    spend(size, `the entry at offset ${offset}`);
    let inflated;
    try {
      inflated = inflate(pack.subarray(0, end), at, size);
    } catch (error) {
      throw invalid(remote, `entry ${i} at offset ${offset} does not inflate to its declared ${size} bytes (${(error as Error).message})`);
    }
    entry.content = inflated.content;
    at += inflated.consumed;
    entries.push(entry);
    byOffset.set(offset, entry);
  }
  if (at !== end) throw invalid(remote, `${end - at} unexpected bytes after the last entry`);

  // Resolve deltas; a base by oid may be a later entry, so loop until nothing more resolves.
  const oidOf = (e: Entry) => repo.platform.sha1Hex(frameObject(e.type!, e.content));
  for (const e of entries) if (e.type) quarantine.set(await oidOf(e), { type: e.type, content: e.content });
  let pending = entries.filter((e) => !e.type);
  while (pending.length > 0) {
    const next: Entry[] = [];
    for (const e of pending) {
      let base: { type: ObjectType; content: Uint8Array } | undefined;
      if (e.baseOffset !== undefined) {
        const b = byOffset.get(e.baseOffset);
        if (!b) throw invalid(remote, `a delta at offset ${e.offset} names no entry as its base`);
        if (b.type) base = { type: b.type, content: b.content };
      } else {
        base = quarantine.get(e.baseOid!);
        if (!base && (await repo.objects.has(e.baseOid!))) base = await repo.objects.read(e.baseOid!);
      }
      if (!base) {
        next.push(e);
        continue;
      }
      const sizes = deltaSizes(e.content);
      if (sizes === null) throw invalid(remote, `the delta at offset ${e.offset} has no size header`);
      if (sizes.result > maxDeltaResult(e.content.length)) {
        throw tooLarge(remote, `the delta at offset ${e.offset} declares a ${sizes.result}-byte result that its ${e.content.length} bytes of instructions cannot produce`, limits);
      }
      spend(sizes.result, `the delta at offset ${e.offset}`);
      try {
        e.content = applyDelta(base.content, e.content);
      } catch (error) {
        throw invalid(remote, `the delta at offset ${e.offset} does not apply (${(error as Error).message})`);
      }
      e.type = base.type;
      quarantine.set(await oidOf(e), { type: e.type, content: e.content });
    }
    if (next.length === pending.length) throw invalid(remote, `${next.length} delta(s) whose base is neither in the pack nor in this repository`);
    pending = next;
  }
  return quarantine;
}
