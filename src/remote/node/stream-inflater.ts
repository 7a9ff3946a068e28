/** Node's zlib for unpacking received packs: inflateSync reports how many input bytes the stream used. */
import { inflateSync } from 'node:zlib';
import { ForgeError } from '../../errors';
import type { StreamInflater } from '../pack-unpack';

export const nodeStreamInflater: StreamInflater = (data, offset, size) => {
  const input = data.subarray(offset);
  const result = inflateSync(input, { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  if (result.buffer.length !== size) throw new ForgeError('OBJECT_CORRUPT', `inflated to ${result.buffer.length} bytes, the entry declares ${size}`);
  return { content: new Uint8Array(result.buffer.buffer, result.buffer.byteOffset, result.buffer.length), consumed: result.engine.bytesWritten };
};
