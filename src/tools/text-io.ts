/**
 * Bytes <-> text for the text tools. Decoding is strict UTF-8 with the BOM kept as U+FEFF, so a
 * file is written back byte for byte apart from the edit; anything that is not UTF-8, or holds
 * NUL bytes as git's own heuristic says, is binary and described rather than dumped or edited.
 */
import { ForgeError } from '../errors';

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
  return encoder.encode(text).length;
}
