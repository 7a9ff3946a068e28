/**
 * JSON.parse for a document of UTF-8 bytes in which a few strings may be huge (a `forge turn`
 * calls file with a 100 MB write_file): strings of `largeStringBytes` or more come back as
 * Utf8Text, their escapes decoded IN PLACE in the input buffer (a decoded string is never
 * longer than its literal), so the content exists once, as bytes. Everything else is parsed by
 * JSON.parse on the document with those literals cut out. Pure.
 *
 * The input must be valid UTF-8 (the caller checks: node's buffer.isUtf8); the input buffer is
 * modified. A large string's bytes are what TextEncoder gives for the string JSON.parse would
 * return (a lone surrogate escape becomes U+FFFD, as TextEncoder writes it).
 */
import { Utf8Text } from './utf8-text';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const decoder = new TextDecoder();

export class JsonBytesError extends SyntaxError {}

interface Literal {
  /** Offset of the opening quote. */
  open: number;
  /** Offset of the closing quote. */
  close: number;
}

export function parseJsonBytes(bytes: Uint8Array, options: { largeStringBytes: number }): unknown {
  const large = largeStringLiterals(bytes, options.largeStringBytes);
  if (large.length === 0) return JSON.parse(decoder.decode(bytes));
  // A stand-in no document holds by chance: a fresh random tag per parse.
  const tag = `\u0000forge-utf8-${globalThis.crypto.randomUUID()}-`;
  let text = '';
  let from = 0;
  for (const [i, literal] of large.entries()) {
    text += decoder.decode(bytes.subarray(from, literal.open)) + JSON.stringify(tag + i);
    from = literal.close + 1;
  }
  text += decoder.decode(bytes.subarray(from));
  // Parsed before the literals are decoded in place: a syntax error elsewhere changes nothing.
  const values = new Map<string, Utf8Text | null>(large.map((_, i) => [tag + i, null]));
  const parsed: unknown = JSON.parse(text);
  for (const [i, literal] of large.entries()) values.set(tag + i, new Utf8Text(decodeStringInPlace(bytes, literal)));
  return replaceTags(parsed, values);
}

/** The string literals of at least `min` bytes between their quotes that are values, not keys. */
function largeStringLiterals(bytes: Uint8Array, min: number): Literal[] {
  const out: Literal[] = [];
  let at = 0;
  for (;;) {
    const open = bytes.indexOf(QUOTE, at);
    if (open < 0) return out;
    let close = bytes.indexOf(QUOTE, open + 1);
    // A quote preceded by an odd number of backslashes is escaped.
    while (close >= 0 && backslashesBefore(bytes, close) % 2 === 1) close = bytes.indexOf(QUOTE, close + 1);
    if (close < 0) return out; // unterminated: JSON.parse reports it
    if (close - open - 1 >= min && !isKey(bytes, close + 1)) out.push({ open, close });
    at = close + 1;
  }
}

function backslashesBefore(bytes: Uint8Array, at: number): number {
  let n = 0;
  while (at - 1 - n >= 0 && bytes[at - 1 - n] === BACKSLASH) n++;
  return n;
}

function isKey(bytes: Uint8Array, at: number): boolean {
  while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0a || bytes[at] === 0x0d)) at++;
  return bytes[at] === 0x3a; // ':'
}

function replaceTags(value: unknown, values: Map<string, Utf8Text | null>): unknown {
  if (typeof value === 'string') return values.get(value) ?? value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = replaceTags(value[i], values);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = replaceTags(record[key], values);
      // Defined, not assigned: a "__proto__" key is an own property here, as JSON.parse made it.
      if (item !== record[key]) Object.defineProperty(record, key, { value: item, writable: true, enumerable: true, configurable: true });
    }
  }
  return value;
}

const SIMPLE_ESCAPES: Record<number, number> = { 0x22: 0x22, 0x5c: 0x5c, 0x2f: 0x2f, 0x62: 0x08, 0x66: 0x0c, 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09 };

/** Decodes a literal's escapes over its own bytes; the decoded string's bytes, as a view. */
function decodeStringInPlace(bytes: Uint8Array, { open, close }: Literal): Uint8Array {
  const start = open + 1;
  let read = start;
  let write = start;
  for (;;) {
    const escape = bytes.indexOf(BACKSLASH, read);
    const runEnd = escape < 0 || escape > close ? close : escape;
    checkNoControl(bytes, read, runEnd);
    if (write !== read) bytes.copyWithin(write, read, runEnd);
    write += runEnd - read;
    read = runEnd;
    if (read === close) return bytes.subarray(start, write);
    const kind = bytes[read + 1]!;
    const simple = SIMPLE_ESCAPES[kind];
    if (simple !== undefined) {
      bytes[write++] = simple;
      read += 2;
      continue;
    }
    if (kind !== 0x75) throw new JsonBytesError(`Bad escaped character in JSON at position ${read + 1}`);
    let code = hex4(bytes, read + 2);
    read += 6;
    if (code >= 0xd800 && code <= 0xdbff && bytes[read] === BACKSLASH && bytes[read + 1] === 0x75) {
      const low = hex4(bytes, read + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        read += 6;
      }
    }
    // A lone surrogate is written as U+FFFD, as TextEncoder does.
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    write = putUtf8(bytes, write, code);
  }
}

function checkNoControl(bytes: Uint8Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    if (bytes[i]! < 0x20) throw new JsonBytesError(`Bad control character in string literal in JSON at position ${i}`);
  }
}

function hex4(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let i = at; i < at + 4; i++) {
    const c = bytes[i];
    const digit = c === undefined ? -1 : c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit < 0) throw new JsonBytesError(`Bad Unicode escape in JSON at position ${at - 2}`);
    value = value * 16 + digit;
  }
  return value;
}

function putUtf8(bytes: Uint8Array, at: number, code: number): number {
  if (code < 0x80) {
    bytes[at] = code;
    return at + 1;
  }
  if (code < 0x800) {
    bytes[at] = 0xc0 | (code >> 6);
    bytes[at + 1] = 0x80 | (code & 0x3f);
    return at + 2;
  }
  if (code < 0x10000) {
    bytes[at] = 0xe0 | (code >> 12);
    bytes[at + 1] = 0x80 | ((code >> 6) & 0x3f);
    bytes[at + 2] = 0x80 | (code & 0x3f);
    return at + 3;
  }
  bytes[at] = 0xf0 | (code >> 18);
  bytes[at + 1] = 0x80 | ((code >> 12) & 0x3f);
  bytes[at + 2] = 0x80 | ((code >> 6) & 0x3f);
  bytes[at + 3] = 0x80 | (code & 0x3f);
  return at + 4;
}
