/**
 * Unpacks a received packfile into the object store, as `git unpack-objects` does: every entry
 * inflated, deltas (by offset or by base oid, the base in the pack or already in the store)
 * resolved, the trailing checksum verified, then each object written through ObjectStore.write
 * (crash-safe: a temporary file, then a rename). Nothing is written unless the whole pack
 * parses and its checksum matches: a cut connection leaves the store as it was.
 */
import { ForgeError } from '../errors';
import type { ObjectType, Repository } from '../git';
import { applyDelta } from '../git/delta';
import { parseEntryHeader } from '../git/pack-entry';
import { frameObject } from '../git/object-codec';

/** Inflates the zlib stream at `offset`, which must give `size` bytes; reports the compressed length. */
export type StreamInflater = (data: Uint8Array, offset: number, size: number) => { content: Uint8Array; consumed: number };

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

export interface UnpackResult {
  oids: string[];
}

function corrupt(remote: string, detail: string): ForgeError {
  return new ForgeError('REMOTE_PROTOCOL_ERROR', `The pack received from ${remote} is not valid: ${detail}. Nothing was written.`, { data: { remote } });
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export async function unpackInto(repo: Repository, pack: Uint8Array, inflate: StreamInflater, remote: string): Promise<UnpackResult> {
  if (pack.length === 0) return { oids: [] };
  if (pack.length < 32 || pack[0] !== 0x50 || pack[1] !== 0x41 || pack[2] !== 0x43 || pack[3] !== 0x4b) throw corrupt(remote, 'no PACK signature');
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
  const version = view.getUint32(4);
  if (version !== 2 && version !== 3) throw corrupt(remote, `pack version ${version}`);
  const count = view.getUint32(8);
  const expected = hex(pack.subarray(pack.length - 20));
  const actual = await repo.platform.sha1Hex(pack.subarray(0, pack.length - 20));
  if (actual !== expected) throw corrupt(remote, 'its checksum does not match (truncated or damaged in transit)');

  const entries: Entry[] = [];
  const byOffset = new Map<number, Entry>();
  let at = 12;
  for (let i = 0; i < count; i++) {
    const offset = at;
    const { typeCode, size, length } = parseEntryHeader(pack, at);
    at += length;
    let byte: number;
    const entry: Entry = { offset, content: new Uint8Array(0) };
    if (typeCode === OFS_DELTA) {
      byte = pack[at++]!;
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
      throw corrupt(remote, `an entry of unknown type ${typeCode} at offset ${offset}`);
    }
    if (at >= pack.length - 20) throw corrupt(remote, `entry ${i} runs past the end`);
    let inflated;
    try {
      inflated = inflate(pack, at, size);
    } catch (error) {
      throw corrupt(remote, `entry ${i} does not inflate (${(error as Error).message})`);
    }
    entry.content = inflated.content;
    at += inflated.consumed;
    entries.push(entry);
    byOffset.set(offset, entry);
  }
  if (at !== pack.length - 20) throw corrupt(remote, `${pack.length - 20 - at} unexpected bytes after the last entry`);

  // Resolve deltas; a base by oid may be a later entry, so loop until nothing more resolves.
  const byOid = new Map<string, Entry>();
  const resolved: Array<{ type: ObjectType; content: Uint8Array }> = [];
  const oidOf = (e: Entry) => repo.platform.sha1Hex(frameObject(e.type!, e.content));
  for (const e of entries) if (e.type) byOid.set(await oidOf(e), e);
  let pending = entries.filter((e) => !e.type);
  while (pending.length > 0) {
    const next: Entry[] = [];
    for (const e of pending) {
      let base: { type: ObjectType; content: Uint8Array } | undefined;
      if (e.baseOffset !== undefined) {
        const b = byOffset.get(e.baseOffset);
        if (!b) throw corrupt(remote, `a delta at offset ${e.offset} names no entry as its base`);
        if (b.type) base = { type: b.type, content: b.content };
      } else {
        const b = byOid.get(e.baseOid!);
        if (b) base = { type: b.type!, content: b.content };
        else if (await repo.objects.has(e.baseOid!)) base = await repo.objects.read(e.baseOid!);
      }
      if (!base) {
        next.push(e);
        continue;
      }
      e.content = applyDelta(base.content, e.content);
      e.type = base.type;
      byOid.set(await oidOf(e), e);
    }
    if (next.length === pending.length) throw corrupt(remote, `${next.length} delta(s) whose base is neither in the pack nor in this repository`);
    pending = next;
  }
  for (const e of entries) resolved.push({ type: e.type!, content: e.content });
  const oids: string[] = [];
  for (const object of resolved) oids.push(await repo.objects.write(object.type, object.content));
  return { oids };
}
