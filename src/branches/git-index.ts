/**
 * git's index file (Documentation/gitformat-index.txt), as far as updating a clean checkout
 * needs: read versions 2, 3 and 4 (prefix-compressed paths), write version 2. Extensions are
 * dropped on write (TREE, UNTR, FSMN and the like are caches git rebuilds); an index that needs a
 * mandatory extension (split index "link", sparse directories "sdir") is refused.
 * Pure: the caller supplies SHA-1 for the trailing checksum.
 */
import { ForgeError } from '../errors';

export interface IndexEntry {
  ctimeSeconds: number;
  ctimeNanoseconds: number;
  mtimeSeconds: number;
  mtimeNanoseconds: number;
  dev: number;
  ino: number;
  /** 0o100644, 0o100755, 0o120000 or 0o160000. */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  oid: string;
  /** 0 for a merged entry; 1-3 for the stages of a conflict. */
  stage: number;
  assumeValid: boolean;
  skipWorktree: boolean;
  intentToAdd: boolean;
  path: string;
}

export interface IndexFile {
  version: number;
  entries: IndexEntry[];
  /** Signatures of the extensions the file had. */
  extensions: string[];
}

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

function corrupt(detail: string): ForgeError {
  return new ForgeError('WORKTREE_UNSUPPORTED', `The index file cannot be read: ${detail}.`, { data: { detail } });
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

export function parseIndex(bytes: Uint8Array, sha1Hex: (data: Uint8Array) => string): IndexFile {
  if (bytes.length < 32) throw corrupt('it is too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== 'DIRC') throw corrupt('no DIRC signature');
  const version = view.getUint32(4);
  if (version < 2 || version > 4) throw corrupt(`version ${version}`);
  const checksum = hex(bytes.subarray(bytes.length - 20));
  if (checksum !== '0'.repeat(40) && sha1Hex(bytes.subarray(0, bytes.length - 20)) !== checksum) throw corrupt('checksum mismatch');
  const count = view.getUint32(8);
  const entries: IndexEntry[] = [];
  let p = 12;
  let previous = '';
  for (let i = 0; i < count; i++) {
    const start = p;
    if (p + 62 > bytes.length - 20) throw corrupt('truncated entry');
    const flags = view.getUint16(p + 60);
    let extended = 0;
    p += 62;
    if (flags & 0x4000) {
      if (version < 3) throw corrupt('extended flags in a version 2 index');
      extended = view.getUint16(p);
      p += 2;
    }
    let path: string;
    if (version === 4) {
      // Varint: how many bytes of the previous path to drop; then the rest, NUL-terminated.
      let c = bytes[p++]!;
      let strip = c & 127;
      while (c & 128) {
        strip += 1;
        c = bytes[p++]!;
        strip = strip * 128 + (c & 127);
      }
      const nul = bytes.indexOf(0, p);
      if (nul < 0) throw corrupt('unterminated path');
      const prefix = encoder.encode(previous);
      const rest = bytes.subarray(p, nul);
      const full = new Uint8Array(prefix.length - strip + rest.length);
      full.set(prefix.subarray(0, prefix.length - strip), 0);
      full.set(rest, prefix.length - strip);
      path = decoder.decode(full);
      p = nul + 1;
    } else {
      const nul = bytes.indexOf(0, p);
      if (nul < 0) throw corrupt('unterminated path');
      path = decoder.decode(bytes.subarray(p, nul));
      p = start + ((nul - start + 8) & ~7);
    }
    previous = path;
    entries.push({
      ctimeSeconds: view.getUint32(start),
      ctimeNanoseconds: view.getUint32(start + 4),
      mtimeSeconds: view.getUint32(start + 8),
      mtimeNanoseconds: view.getUint32(start + 12),
      dev: view.getUint32(start + 16),
      ino: view.getUint32(start + 20),
      mode: view.getUint32(start + 24),
      uid: view.getUint32(start + 28),
      gid: view.getUint32(start + 32),
      size: view.getUint32(start + 36),
      oid: hex(bytes.subarray(start + 40, start + 60)),
      stage: (flags >> 12) & 3,
      assumeValid: (flags & 0x8000) !== 0,
      skipWorktree: (extended & 0x4000) !== 0,
      intentToAdd: (extended & 0x2000) !== 0,
      path,
    });
  }
  const extensions: string[] = [];
  while (p + 8 <= bytes.length - 20) {
    const signature = String.fromCharCode(...bytes.subarray(p, p + 4));
    const size = view.getUint32(p + 4);
    extensions.push(signature);
    p += 8 + size;
  }
  return { version, entries, extensions };
}

/** Index entries sort by path bytes, then stage. */
export function compareIndexPaths(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** A version 2 index of `entries` (stage 0, no extended flags), with its checksum. */
export function serializeIndex(entries: readonly IndexEntry[], sha1Hex: (data: Uint8Array) => string): Uint8Array {
  const sorted = [...entries].sort((a, b) => compareIndexPaths(a.path, b.path) || a.stage - b.stage);
  const chunks: Uint8Array[] = [];
  const header = new Uint8Array(12);
  const hv = new DataView(header.buffer);
  header.set(encoder.encode('DIRC'), 0);
  hv.setUint32(4, 2);
  hv.setUint32(8, sorted.length);
  chunks.push(header);
  for (const e of sorted) {
    if (e.skipWorktree || e.intentToAdd) throw new ForgeError('WORKTREE_UNSUPPORTED', `Index entry ${e.path} has extended flags that a version 2 index cannot hold.`, { data: { path: e.path } });
    const name = encoder.encode(e.path);
    const length = (62 + name.length + 8) & ~7;
    const out = new Uint8Array(length);
    const v = new DataView(out.buffer);
    const fields = [e.ctimeSeconds, e.ctimeNanoseconds, e.mtimeSeconds, e.mtimeNanoseconds, e.dev, e.ino, e.mode, e.uid, e.gid, e.size];
    fields.forEach((value, k) => v.setUint32(k * 4, value >>> 0));
    for (let k = 0; k < 20; k++) out[40 + k] = parseInt(e.oid.slice(k * 2, k * 2 + 2), 16);
    v.setUint16(60, (e.assumeValid ? 0x8000 : 0) | ((e.stage & 3) << 12) | Math.min(name.length, 0xfff));
    out.set(name, 62);
    chunks.push(out);
  }
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const body = new Uint8Array(total + 20);
  let offset = 0;
  for (const c of chunks) {
    body.set(c, offset);
    offset += c.length;
  }
  const sum = sha1Hex(body.subarray(0, total));
  for (let k = 0; k < 20; k++) body[total + k] = parseInt(sum.slice(k * 2, k * 2 + 2), 16);
  return body;
}
