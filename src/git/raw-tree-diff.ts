/**
 * The tree diff of tree-diff.ts on the trees' bytes. Parsing every tree read into entry objects
 * with hex and name strings, in maps, with a promise per tree, cost 55-115 ms in a fresh process
 * for the 628 trees of a 100-file session diff on the real-like profile, where the entries that
 * differ are a few hundred. Here both trees of a pair are walked side by side in git's order
 * (equal raw entries skipped by their bytes, equal subtrees by their raw oids), and strings are
 * made only for the entries that differ. The walk is a small synchronous loop (as in
 * tree-files.ts: V8 optimizes it while it runs); the caller reads the subtrees it stops at.
 */
import { corrupt, nameNotUtf8 } from './object-codec';
import { toHex } from './platform';
import type { TreeChangeEntry } from './tree-diff';
import { FILE_MODES, modeCode, type TreeBytesReader } from './tree-files';

export interface RawTreeSource {
  /** A tree's bytes by hex oid (sync where the store reads synchronously). */
  read: TreeBytesReader;
  /** A tree's bytes by raw oid where that is quicker, or null to read it by hex. */
  readRaw?: (oid: Uint8Array) => Uint8Array | null;
  /** Native hex where the platform has it. */
  hex?: (bytes: Uint8Array) => string;
}

const DIRECTORY = 4;
const EMPTY = new Uint8Array(0);
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** The changes from `oldTree` to `newTree` (null: no tree), in git's path order. */
export async function diffRawTrees(source: RawTreeSource, oldTree: string | null, newTree: string | null, prefix = ''): Promise<TreeChangeEntry[]> {
  const out: TreeChangeEntry[] = [];
  if (oldTree === newTree) return out;
  const hex = source.hex ?? toHex;
  const walker = new PairWalker(hex, out);
  const [oldBytes, newBytes] = [await readTree(source, oldTree), await readTree(source, newTree)];
  walker.enter(oldTree, oldBytes, newTree, newBytes, prefix === '' ? '' : `${prefix}/`);
  for (;;) {
    const next = walker.scan();
    if (next === null) return out;
    const a = readRawTree(source, next.oldOid, hex);
    const b = readRawTree(source, next.newOid, hex);
    walker.enter(next.oldOid, a instanceof Uint8Array ? a : await a, next.newOid, b instanceof Uint8Array ? b : await b, next.prefix);
  }
}

function readTree(source: RawTreeSource, oid: string | null): Uint8Array | Promise<Uint8Array> {
  return oid === null ? EMPTY : source.read(oid);
}

/** Sync on the fast path: a promise per tree would cost more than reading it. */
function readRawTree(source: RawTreeSource, oid: Uint8Array | null, hex: (bytes: Uint8Array) => string): Uint8Array | Promise<Uint8Array> {
  if (oid === null) return EMPTY;
  return source.readRaw?.(oid) ?? source.read(hex(oid));
}

/** Two subtrees to walk next: raw oids (null: that side has none) and their path prefix ("dir/"). */
interface Descent {
  oldOid: Uint8Array | null;
  newOid: Uint8Array | null;
  prefix: string;
}

interface Frame {
  oldOid: string | Uint8Array | null;
  old: Uint8Array;
  oldAt: number;
  newOid: string | Uint8Array | null;
  new: Uint8Array;
  newAt: number;
  prefix: string;
}

/** One side's next entry: where its name and oid lie, and its mode's code. */
interface Entry {
  nameStart: number;
  nameEnd: number;
  code: number;
}

class PairWalker {
  private readonly stack: Frame[] = [];
  private readonly a: Entry = { nameStart: 0, nameEnd: 0, code: 0 };
  private readonly b: Entry = { nameStart: 0, nameEnd: 0, code: 0 };

  constructor(
    private readonly hex: (bytes: Uint8Array) => string,
    private readonly out: TreeChangeEntry[],
  ) {}

  enter(oldOid: string | Uint8Array | null, old: Uint8Array, newOid: string | Uint8Array | null, next: Uint8Array, prefix: string): void {
    this.stack.push({ oldOid, old: plain(old), oldAt: 0, newOid, new: plain(next), newAt: 0, prefix });
  }

  /** Walks until every pair is done (null) or until two subtrees differ, which the caller enters. */
  scan(): Descent | null {
    const { stack, a, b, out } = this;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const old = frame.old;
      const next = frame.new;
      const oldLeft = frame.oldAt < old.length;
      const newLeft = frame.newAt < next.length;
      if (!oldLeft && !newLeft) {
        stack.pop();
        continue;
      }
      if (oldLeft) this.parse(old, frame.oldAt, frame.oldOid, a);
      if (newLeft) this.parse(next, frame.newAt, frame.newOid, b);
      const order = !oldLeft ? 1 : !newLeft ? -1 : compareEntries(old, a, next, b);
      if (order === 0) {
        frame.oldAt = a.nameEnd + 21;
        frame.newAt = b.nameEnd + 21;
        // Same name and kind: equal when the mode and the oid are (a mode written "040000" or "40000" is the same).
        if (a.code === b.code && sameOid(old, a.nameEnd + 1, next, b.nameEnd + 1)) continue;
        const path = frame.prefix + this.name(next, b, frame.newOid);
        if (a.code === DIRECTORY) return { oldOid: old.subarray(a.nameEnd + 1, a.nameEnd + 21), newOid: next.subarray(b.nameEnd + 1, b.nameEnd + 21), prefix: `${path}/` };
        out.push({ path, kind: 'modified', oldOid: this.oidAt(old, a), oldMode: FILE_MODES[a.code]!, newOid: this.oidAt(next, b), newMode: FILE_MODES[b.code]! });
      } else if (order < 0) {
        frame.oldAt = a.nameEnd + 21;
        const path = frame.prefix + this.name(old, a, frame.oldOid);
        if (a.code === DIRECTORY) return { oldOid: old.subarray(a.nameEnd + 1, a.nameEnd + 21), newOid: null, prefix: `${path}/` };
        out.push({ path, kind: 'deleted', oldOid: this.oidAt(old, a), oldMode: FILE_MODES[a.code]! });
      } else {
        frame.newAt = b.nameEnd + 21;
        const path = frame.prefix + this.name(next, b, frame.newOid);
        if (b.code === DIRECTORY) return { oldOid: null, newOid: next.subarray(b.nameEnd + 1, b.nameEnd + 21), prefix: `${path}/` };
        out.push({ path, kind: 'added', newOid: this.oidAt(next, b), newMode: FILE_MODES[b.code]! });
      }
    }
    return null;
  }

  /** The entry at `at` of a tree; a malformed one is OBJECT_CORRUPT, as parseTree says. */
  private parse(tree: Uint8Array, at: number, oid: string | Uint8Array | null, entry: Entry): void {
    const space = tree.indexOf(0x20, at);
    const nul = space < 0 ? -1 : tree.indexOf(0, space + 1);
    if (nul < 0 || nul + 21 > tree.length) throw corrupt(this.oidText(oid), 'truncated tree entry');
    const code = modeCode(tree, at, space);
    if (code < 0) throw corrupt(this.oidText(oid), `unknown mode ${String.fromCharCode(...tree.subarray(at, Math.min(space, at + 16)))}`);
    entry.nameStart = space + 1;
    entry.nameEnd = nul;
    entry.code = code;
  }

  /** A name as a string: UTF-8, strictly (TREE_ENTRY_INVALID otherwise, as parseTree). */
  private name(tree: Uint8Array, entry: Entry, oid: string | Uint8Array | null): string {
    let ascii = '';
    for (let k = entry.nameStart; k < entry.nameEnd; k++) {
      const c = tree[k]!;
      if (c >= 0x80) {
        try {
          return strictDecoder.decode(tree.subarray(entry.nameStart, entry.nameEnd));
        } catch {
          throw nameNotUtf8(this.oidText(oid));
        }
      }
      ascii += String.fromCharCode(c);
    }
    return ascii;
  }

  private oidAt(tree: Uint8Array, entry: Entry): string {
    return this.hex(tree.subarray(entry.nameEnd + 1, entry.nameEnd + 21));
  }

  private oidText(oid: string | Uint8Array | null): string {
    return oid === null ? '?' : typeof oid === 'string' ? oid : this.hex(oid);
  }
}

/** One kind of array (not Node's Buffer subclass as well), so that the loop stays monomorphic. */
function plain(tree: Uint8Array): Uint8Array {
  return tree.constructor === Uint8Array ? tree : new Uint8Array(tree.buffer, tree.byteOffset, tree.byteLength);
}

/**
 * git's order of two entries (tree.c base_name_compare): the names' bytes, a directory's name
 * compared as if followed by "/". A file and a directory of the same name are two entries.
 */
function compareEntries(x: Uint8Array, a: Entry, y: Uint8Array, b: Entry): number {
  const aLength = a.nameEnd - a.nameStart;
  const bLength = b.nameEnd - b.nameStart;
  const length = aLength < bLength ? aLength : bLength;
  for (let k = 0; k < length; k++) {
    const d = x[a.nameStart + k]! - y[b.nameStart + k]!;
    if (d !== 0) return d;
  }
  const c1 = aLength > length ? x[a.nameStart + length]! : a.code === DIRECTORY ? 0x2f : 0;
  const c2 = bLength > length ? y[b.nameStart + length]! : b.code === DIRECTORY ? 0x2f : 0;
  return c1 - c2;
}

function sameOid(x: Uint8Array, i: number, y: Uint8Array, j: number): boolean {
  for (let k = 0; k < 20; k++) if (x[i + k] !== y[j + k]) return false;
  return true;
}
