/**
 * A long string argument held as its UTF-8 bytes, never decoded: what `forge turn` makes of a
 * JSON string of a megabyte or more (see json-bytes.ts). A 100 MB write_file is then one copy
 * of the content, not the JSON text, the parsed string and its encoding again. Tools that
 * declare the field (`utf8Args`) take the bytes; for any other field the registry decodes it.
 */
const decoder = new TextDecoder();

export class Utf8Text {
  constructor(readonly bytes: Uint8Array) {}

  /** The string JSON.parse would have given. */
  toString(): string {
    return decoder.decode(this.bytes);
  }

  /** The string's length in UTF-16 code units (String.prototype.length), without decoding it. */
  get length(): number {
    const bytes = this.bytes;
    let units = 0;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      // Every lead byte starts one code unit; a 4-byte sequence is a surrogate pair (two).
      if ((byte & 0xc0) !== 0x80) units += byte >= 0xf0 ? 2 : 1;
    }
    return units;
  }

  /** The first `units` UTF-16 code units, as `toString().slice(0, units)` gives them. */
  head(units: number): string {
    // A code unit takes at most 3 bytes (a surrogate pair 4 for two), so 3 * units bytes hold them.
    return decoder.decode(this.bytes.subarray(0, 3 * units + 3)).slice(0, units);
  }
}

/**
 * Replaces every Utf8Text in a JSON-like value by its string (what a plain JSON.parse gives);
 * a value that holds none is returned as it is.
 */
export function decodeUtf8Texts(value: unknown): unknown {
  if (value instanceof Utf8Text) return value.toString();
  if (Array.isArray(value)) {
    const items = value.map(decodeUtf8Texts);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const decoded = entries.map(([key, item]) => [key, decodeUtf8Texts(item)] as const);
    return decoded.some(([, item], i) => item !== entries[i]![1]) ? Object.fromEntries(decoded) : value;
  }
  return value;
}

/**
 * A call's arguments for a tool that takes `fields` as bytes: those fields' Utf8Texts are set
 * aside (the input gets a short preview of each, for validation and approval), and every other
 * Utf8Text is decoded, so a tool that does not declare a field never sees one.
 */
export function splitUtf8Args(args: unknown, fields: readonly string[]): { args: unknown; bytes: Map<string, Uint8Array> } {
  const bytes = new Map<string, Uint8Array>();
  if (args === null || typeof args !== 'object' || Array.isArray(args) || fields.length === 0) return { args: decodeUtf8Texts(args), bytes };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    let item: unknown;
    if (value instanceof Utf8Text && fields.includes(key)) {
      bytes.set(key, value.bytes);
      item = `${value.head(PREVIEW_UNITS)}… [${value.bytes.length} bytes in all]`;
    } else {
      item = decodeUtf8Texts(value);
    }
    Object.defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
  }
  return { args: out, bytes };
}

const PREVIEW_UNITS = 512;
