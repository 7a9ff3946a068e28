/**
 * Writes a packfile (gitformat-pack, version 2): each object deflated on its own, whole or as a
 * delta against an object named by oid (REF_DELTA) that the receiver has (a "thin" pack, which
 * receive-pack completes) or finds in the pack.
 */
import type { ObjectType } from '../git';
import { concatBytes } from './pkt-line';
import { encodeEntryHeader, PACK_TYPE_CODES } from '../git/pack-entry';

export interface PackObject {
  type: ObjectType;
  content: Uint8Array;
  /** Send as a delta against this object (by oid: REF_DELTA), which the receiver has or gets in the pack. */
  delta?: { base: string; data: Uint8Array };
}

const REF_DELTA = 7;

export interface PackWriterPlatform {
  deflate(data: Uint8Array): Promise<Uint8Array> | Uint8Array;
  sha1Hex(data: Uint8Array): Promise<string> | string;
}


export async function writePack(objects: AsyncIterable<PackObject> | Iterable<PackObject>, count: number, platform: PackWriterPlatform): Promise<Uint8Array> {
  const header = new Uint8Array(12);
  header.set([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2], 0);
  new DataView(header.buffer).setUint32(8, count);
  const parts: Uint8Array[] = [header];
  let written = 0;
  for await (const object of objects) {
    if (object.delta) parts.push(encodeEntryHeader(REF_DELTA, object.delta.data.length), hexToBytes(object.delta.base), await platform.deflate(object.delta.data));
    else parts.push(encodeEntryHeader(PACK_TYPE_CODES[object.type], object.content.length), await platform.deflate(object.content));
    written++;
  }
  if (written !== count) throw new Error(`writePack: ${written} objects given, ${count} declared`);
  const body = concatBytes(parts);
  const checksum = hexToBytes(await platform.sha1Hex(body));
  return concatBytes([body, checksum]);
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
