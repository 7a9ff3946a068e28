/**
 * Content hashes for read tracking and file_hash: SHA-256 hex of the raw bytes, through Web
 * Crypto so the tool layer also runs in a browser (no node:crypto).
 */
import { joinBytes, type Bytes } from '../git/byte-runs';

export async function sha256Hex(bytes: Bytes): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', joinBytes(bytes) as Uint8Array<ArrayBuffer>);
  let out = '';
  for (const byte of new Uint8Array(digest)) out += byte.toString(16).padStart(2, '0');
  return out;
}
