/**
 * Bytes <-> text for the text tools. Decoding is strict UTF-8 with the BOM kept as U+FEFF, so a
 * file is written back byte for byte apart from the edit; anything that is not UTF-8, or holds
 * NUL bytes as git's own heuristic says, is binary and described rather than dumped or edited.
 */
import { ForgeError } from '../errors';
import type { Bytes } from '../git/byte-runs';

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** git looks for NUL in the first 8000 bytes. */
const BINARY_SNIFF_BYTES = 8000;

/** The text of UTF-8 bytes, or null when they are binary. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return null;
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Whether decodeText would give text (not null), without building the string: the bytes are
 * decoded a chunk at a time and each chunk's string dropped, so a 50 MB file costs no 50 MB
 * (or 100 MB, two bytes per character) string.
 */
export function isUtf8Text(bytes: Uint8Array): boolean {
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return false;
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    for (let at = 0; at < bytes.length; at += CHECK_CHUNK_BYTES) decoder.decode(bytes.subarray(at, at + CHECK_CHUNK_BYTES), { stream: true });
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

const CHECK_CHUNK_BYTES = 1 << 16;

/** Like decodeText, but a binary file is a BINARY_FILE error for `toolName`. */
export function decodeTextOrThrow(bytes: Uint8Array, path: string, toolName: string): string {
  const text = decodeText(bytes);
  if (text === null) {
    throw new ForgeError('BINARY_FILE', `${path} is a binary file (not UTF-8 text); ${toolName} edits text files only. Replace it whole with write_file only if you really mean to.`, {
      data: { path, size: bytes.length },
    });
  }
  return text;
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

export function utf8ByteLength(text: string): number {
  return utf8LengthOf(text, 0, text.length);
}

/**
 * bytes[0, start) + the replacement's UTF-8 + bytes[end, ...): a splice in byte offsets, the new
 * file assembled once from the old one's bytes.
 */
export function spliceBytes(bytes: Uint8Array, splice: { start: number; end: number; replacement: string }): Uint8Array {
  const middle = encoder.encode(splice.replacement);
  const out = new Uint8Array(bytes.length - (splice.end - splice.start) + middle.length);
  out.set(bytes.subarray(0, splice.start), 0);
  out.set(middle, splice.start);
  out.set(bytes.subarray(splice.end), splice.start + middle.length);
  return out;
}

/** From this size a splice's result stays runs over the old bytes (splicedContent). */
const SPLICE_RUNS_FROM_BYTES = 1 << 20;

/**
 * spliceBytes's result as the object store takes it: for a large file, three runs (the old
 * bytes before the splice, the replacement's UTF-8, the old bytes after it; views of `bytes`,
 * which must not change) that are hashed and deflated in turn, so that a one-line edit of a
 * 50 MB file never assembles its new version (issue 30: 48 MiB less at the edit's peak).
 */
export function splicedContent(bytes: Uint8Array, splice: { start: number; end: number; replacement: string }): Bytes {
  if (bytes.length < SPLICE_RUNS_FROM_BYTES) return spliceBytes(bytes, splice);
  return [bytes.subarray(0, splice.start), encoder.encode(splice.replacement), bytes.subarray(splice.end)];
}

/** The text of bytes[start, end) (valid UTF-8 cut at character boundaries; a BOM kept). */
export function decodeRange(bytes: Uint8Array, start: number, end: number): string {
  return rangeDecoder.decode(bytes.subarray(start, end));
}

const rangeDecoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Bytes of text[from, to) in UTF-8, as TextEncoder writes them (a lone surrogate takes 3). */
function utf8LengthOf(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
