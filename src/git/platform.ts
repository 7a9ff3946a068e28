/**
 * Hashing and compression, injected so that the core runs anywhere: the portable platform uses
 * WebCrypto and CompressionStream (browsers, Node >= 18); the Node adapter (node/platform.ts)
 * adds synchronous native zlib and sha1, which the pack reader needs to read by offset fast.
 */

export interface SyncPlatform {
  sha1Hex(data: Uint8Array): string;
  inflate(data: Uint8Array): Uint8Array;
  /**
   * Inflates the zlib stream at the start of `data` (unrelated bytes may follow it) that must
   * inflate to exactly `size` bytes, as a pack entry declares; throws otherwise.
   */
  inflateSized(data: Uint8Array, size: number): Uint8Array;
  /** Whatever the start of a (possibly cut) zlib stream inflates to: an object's header without the object. */
  inflatePrefix(data: Uint8Array): Uint8Array;
  deflate(data: Uint8Array): Uint8Array;
  /**
   * Optional, for large objects: the SHA-1 of the parts' concatenation, and one zlib stream of it
   * as a list of byte runs to write in order, without ever holding the concatenation (a 100 MB
   * blob framed and deflated whole cost two more copies of it).
   */
  sha1HexParts?(parts: readonly Uint8Array[]): string;
  /** Optional: the SHA-256 of the parts' concatenation (a large file's new version given as runs). */
  sha256HexParts?(parts: readonly Uint8Array[]): string;
  deflateParts?(parts: readonly Uint8Array[]): Uint8Array[];
  /**
   * Optional, for large objects: the same zlib stream handed to `write` a piece at a time as it
   * is made (each piece valid only during its call), so that it is never held whole either.
   */
  deflateInto?(parts: readonly Uint8Array[], write: (piece: Uint8Array) => void): void;
}

/** Whole-buffer string decoding, where the platform has it natively (Node's Buffer). */
export interface ByteText {
  hex(bytes: Uint8Array): string;
  /** Lowercase hex to bytes; stops at the first character that is not hex, as Buffer does. */
  hexToBytes(hex: string): Uint8Array;
  /** One char per byte. */
  latin1(bytes: Uint8Array): string;
  /** Whether the bytes are well-formed UTF-8, without decoding them. */
  isUtf8(bytes: Uint8Array): boolean;
}

export interface GitPlatform {
  sha1Hex(data: Uint8Array): Promise<string>;
  sha256Hex(data: Uint8Array): Promise<string>;
  inflate(data: Uint8Array): Promise<Uint8Array>;
  deflate(data: Uint8Array): Promise<Uint8Array>;
  /** Present on platforms with synchronous native primitives (Node). */
  sync?: SyncPlatform;
  text?: ByteText;
  /** Who this process is, for session leases (Node: pid, host name, a liveness probe). */
  processInfo?: ProcessInfo;
}

/** A process that may hold a session's lease, and whether another one on this host still runs. */
export interface ProcessInfo {
  pid: number;
  host: string;
  /** true/false for a process of this host; undefined when it cannot be known. */
  isAlive(pid: number): boolean | undefined;
}

export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]!];
  return out;
}

/** Whether the bytes are well-formed UTF-8: the portable form of ByteText.isUtf8 (it decodes them). */
export function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hexDigit(code: number): number {
  // '0'-'9' -> 0-9, 'a'-'f' / 'A'-'F' -> 10-15 (callers pass validated hex)
  return code <= 57 ? code - 48 : (code | 0x20) - 87;
}

export function fromHex(hex: string, out: Uint8Array = new Uint8Array(hex.length / 2), offset = 0): Uint8Array {
  for (let i = 0; i < hex.length / 2; i++) out[offset + i] = (hexDigit(hex.charCodeAt(i * 2)) << 4) | hexDigit(hex.charCodeAt(i * 2 + 1));
  return out;
}

async function digestHex(algorithm: 'SHA-1' | 'SHA-256', data: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest(algorithm, data as Uint8Array<ArrayBuffer>);
  return toHex(new Uint8Array(digest));
}

async function pipeThrough(data: Uint8Array, stream: { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> }): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  void writer.write(data).then(() => writer.close()).catch(() => undefined);
  const chunks: Uint8Array[] = [];
  const reader = stream.readable.getReader();
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.length;
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Works wherever WebCrypto and CompressionStream exist (browsers, Node >= 18, Deno, Bun). */
export const portablePlatform: GitPlatform = {
  sha1Hex: (data) => digestHex('SHA-1', data),
  sha256Hex: (data) => digestHex('SHA-256', data),
  inflate: (data) => pipeThrough(data, new DecompressionStream('deflate') as never),
  deflate: (data) => pipeThrough(data, new CompressionStream('deflate') as never),
};
