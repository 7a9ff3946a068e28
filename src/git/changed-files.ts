/**
 * The file paths that differ between two trees, found in the trees' raw bytes (no entry objects
 * or strings for the unchanged entries): a merge walk over both sorted entry lists, descending
 * only into subtrees whose oids differ, and into every subtree that was added or removed whole
 * (each of its files changed). Mode changes count as changes. Pure: trees come through `read`.
 */

export type TreeBytesRead = (oid: string) => Uint8Array | Promise<Uint8Array>;

const decoder = new TextDecoder();

interface Cursor {
  bytes: Uint8Array;
  /** Start of the current entry, of its name, of its oid (after the NUL). */
  at: number;
  name: number;
  oid: number;
}

function next(c: Cursor, from: number): boolean {
  c.at = from;
  if (from >= c.bytes.length) return false;
  const space = c.bytes.indexOf(0x20, from);
  const nul = space < 0 ? -1 : c.bytes.indexOf(0, space);
  if (nul < 0 || nul + 21 > c.bytes.length) throw new Error('changedFiles: a malformed tree');
  c.name = space + 1;
  c.oid = nul + 1;
  return true;
}

/** A tree entry's mode (`40000` is a directory). */
const isDir = (c: Cursor) => c.name - c.at === 6 && c.bytes[c.at] === 0x34 && c.bytes[c.at + 1] === 0x30;

/** git's order (base_name_compare): names by bytes, a directory's as if it ended with '/'. */
function compare(a: Cursor, b: Cursor): number {
  const la = a.oid - 1 - a.name;
  const lb = b.oid - 1 - b.name;
  const n = Math.min(la, lb);
  for (let i = 0; i < n; i++) {
    const d = a.bytes[a.name + i]! - b.bytes[b.name + i]!;
    if (d !== 0) return d;
  }
  const ca = la > n ? a.bytes[a.name + n]! : isDir(a) ? 0x2f : 0;
  const cb = lb > n ? b.bytes[b.name + n]! : isDir(b) ? 0x2f : 0;
  return ca - cb;
}

function sameEntry(a: Cursor, b: Cursor): boolean {
  if (a.oid - a.at !== b.oid - b.at) return false;
  for (let i = 0; i < a.oid - a.at; i++) if (a.bytes[a.at + i] !== b.bytes[b.at + i]) return false;
  for (let i = 0; i < 20; i++) if (a.bytes[a.oid + i] !== b.bytes[b.oid + i]) return false;
  return true;
}

const nameOf = (c: Cursor) => decoder.decode(c.bytes.subarray(c.name, c.oid - 1));
const DIGITS = Array.from('0123456789abcdef', (d) => d.charCodeAt(0));
const oidCodes = new Array<number>(40);
/** One flat string (a `+=` chain makes a rope, which every Map lookup by it flattens again). */
function oidOf(c: Cursor): string {
  for (let i = 0; i < 20; i++) {
    const b = c.bytes[c.oid + i]!;
    oidCodes[i * 2] = DIGITS[b >>> 4]!;
    oidCodes[i * 2 + 1] = DIGITS[b & 15]!;
  }
  return String.fromCharCode(...oidCodes);
}

/**
 * Every file path (blob, symlink or gitlink) that differs between `oldTree` and `newTree` (either
 * may be null: empty), or null once more than `limit` were found (the caller then treats every
 * path as changed).
 */
export async function changedFiles(read: TreeBytesRead, oldTree: string | null, newTree: string | null, limit: number): Promise<string[] | null> {
  const out: string[] = [];
  return (await walk(read, oldTree, newTree, '', out, limit)) ? out : null;
}

async function walk(read: TreeBytesRead, oldTree: string | null, newTree: string | null, prefix: string, out: string[], limit: number): Promise<boolean> {
  if (oldTree === newTree) return true;
  const a: Cursor = { bytes: oldTree ? await read(oldTree) : new Uint8Array(0), at: 0, name: 0, oid: 0 };
  const b: Cursor = { bytes: newTree ? await read(newTree) : new Uint8Array(0), at: 0, name: 0, oid: 0 };
  let hasA = next(a, 0);
  let hasB = next(b, 0);
  while (hasA || hasB) {
    const order = !hasA ? 1 : !hasB ? -1 : compare(a, b);
    if (order === 0 && sameEntry(a, b)) {
      hasA = next(a, a.oid + 20);
      hasB = next(b, b.oid + 20);
      continue;
    }
    // One side's entry (order < 0: only the old tree's, > 0: only the new's), or both, differing.
    const old = order <= 0 ? a : null;
    const neu = order >= 0 ? b : null;
    const path = prefix + nameOf((old ?? neu)!);
    const oldDir = old !== null && isDir(old) ? oidOf(old) : null;
    const newDir = neu !== null && isDir(neu) ? oidOf(neu) : null;
    if (oldDir !== null || newDir !== null) {
      if (!(await walk(read, oldDir, newDir, `${path}/`, out, limit))) return false;
    }
    if ((old !== null && oldDir === null) || (neu !== null && newDir === null)) {
      out.push(path);
      if (out.length > limit) return false;
    }
    if (old) hasA = next(a, a.oid + 20);
    if (neu) hasB = next(b, b.oid + 20);
  }
  return out.length <= limit;
}
