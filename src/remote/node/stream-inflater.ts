/**
 * Node's zlib for unpacking received packs: inflateSync reports how many input bytes the stream
 * used, and `maxOutputLength` stops it one byte past the entry's declared size, so a stream that
 * lies about its size (an inflate bomb) costs at most that much memory.
 */
import { inflateSync } from 'node:zlib';
import { ForgeError } from '../../errors';
import type { StreamInflater } from '../pack-unpack';

export const nodeStreamInflater: StreamInflater = (data, offset, size) => {
  const input = data.subarray(offset);
  let result: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    result = inflateSync(input, { info: true, maxOutputLength: Math.max(size + 1, 1) }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new ForgeError('OBJECT_CORRUPT', `inflates past the ${size} bytes the entry declares`);
    throw error;
  }
  if (result.buffer.length !== size) throw new ForgeError('OBJECT_CORRUPT', `inflated to ${result.buffer.length} bytes, the entry declares ${size}`);
  return { content: new Uint8Array(result.buffer.buffer, result.buffer.byteOffset, result.buffer.length), consumed: result.engine.bytesWritten };
};
