/** Node adapter: native synchronous sha1 and zlib for the object store's fast paths. */
import { Buffer, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import type { GitPlatform, SyncPlatform } from '../platform';
import { deflateParts } from './deflate-parts';
import { deflateRunsInto, streamDeflaterAvailable } from './deflate-stream';
import { createReusedDeflater, createReusedInflater, streamDeflater, streamInflater, type ReusedDeflater, type ReusedInflater } from './zlib-contexts';

// Made on first use: a process that only reads never builds a deflate context.
let inflater: ReusedInflater | undefined;
let deflater: ReusedDeflater | undefined;

const sync: SyncPlatform = {
  sha1Hex: (data) => createHash('sha1').update(data).digest('hex'),
  inflate: (data) => inflateSync(data),
  inflateSized(data, size) {
    inflater ??= createReusedInflater() ?? streamInflater;
    return inflater.inflate(data, size);
  },
  inflatePrefix: (data) => inflateSync(data, { finishFlush: zlibConstants.Z_SYNC_FLUSH }),
  sha1HexParts(parts) {
    const hash = createHash('sha1');
    for (const part of parts) hash.update(part);
    return hash.digest('hex');
  },
  sha256HexParts(parts) {
    const hash = createHash('sha256');
    for (const part of parts) hash.update(part);
    return hash.digest('hex');
  },
  deflateParts,
  deflateInto(parts, write) {
    if (streamDeflaterAvailable() && deflateRunsInto(parts, write)) return;
    for (const run of deflateParts(parts)) write(run);
  },
  // At git's default level for loose objects (core.looseCompression is 1); gc repacks them later.
  deflate(data) {
    deflater ??= createReusedDeflater() ?? streamDeflater;
    return deflater.deflate(data);
  },
};

const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

/** kill(pid, 0) probes without signalling: ESRCH is gone, EPERM is alive (another user's). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const nodePlatform: GitPlatform = {
  processInfo: { pid: process.pid, host: hostname(), isAlive },
  sha1Hex: async (data) => sync.sha1Hex(data),
  sha256Hex: async (data) => createHash('sha256').update(data).digest('hex'),
  inflate: async (data) => sync.inflate(data),
  deflate: async (data) => sync.deflate(data),
  sync,
  text: {
    hex: (bytes) => asBuffer(bytes).toString('hex'),
    hexToBytes: (hex) => Buffer.from(hex, 'hex'),
    latin1: (bytes) => asBuffer(bytes).toString('latin1'),
    isUtf8: (bytes) => isUtf8(bytes),
  },
};
