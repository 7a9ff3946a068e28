/**
 * Content hashes for read tracking and file_hash: SHA-256 hex of the raw bytes, through Web
 * Crypto so the tool layer also runs in a browser (no node:crypto).
 */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  let out = '';
  for (const byte of new Uint8Array(digest)) out += byte.toString(16).padStart(2, '0');
  return out;
}
