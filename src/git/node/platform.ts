/** Node adapter: native synchronous sha1 and zlib for the object store's fast paths. */
import { createHash } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import type { GitPlatform, SyncPlatform } from '../platform';

const sync: SyncPlatform = {
  sha1Hex: (data) => createHash('sha1').update(data).digest('hex'),
  inflateWithLength(data) {
    // info: true exposes the engine, whose bytesWritten is the compressed length consumed.
    const result = inflateSync(data, { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    return { data: result.buffer, consumed: result.engine.bytesWritten };
  },
  inflate: (data) => inflateSync(data),
  // Level 1 is git's own default for loose objects (core.looseCompression); gc repacks them later.
  deflate: (data) => deflateSync(data, { level: 1 }),
};

export const nodePlatform: GitPlatform = {
  sha1Hex: async (data) => sync.sha1Hex(data),
  sha256Hex: async (data) => createHash('sha256').update(data).digest('hex'),
  inflate: async (data) => sync.inflate(data),
  deflate: async (data) => sync.deflate(data),
  sync,
};
