/**
 * Every file below a tree, flattened in git's path order, straight from the trees' bytes.
 * Pure: the caller passes the tree reader. Listing a big repository reads thousands of trees
 * (2,500 for 50,000 files); parsing each into entry objects with hex and name strings, only to
 * flatten them, cost more than reading them. Here names and oids are copied as bytes into
 * columns (the on-disk path map's layout) and become strings once, for all files together.
 */
import { corrupt, nameNotUtf8 } from './object-codec';
import { isUtf8, toHex } from './platform';

/** File modes in the order of their one-byte codes in `TreeFiles.modes`. */
export const FILE_MODES = ['100644', '100755', '120000', '160000'] as const;
export type FileModeCode = 0 | 1 | 2 | 3;

/** The files below a tree, in git's order, in columns. */
export interface TreeFiles {
  count: number;
  /** One code per file: an index into FILE_MODES. */
  modes: Uint8Array;
  /** The raw oids, 20 bytes per file. */
  oids: Uint8Array;
  /** The paths, UTF-8, separated by NUL (the one byte a git path cannot hold); no trailing NUL. */
  paths: Uint8Array;
}

/** Sync where the store reads synchronously: a promise per tree would cost more than the read. */
export type TreeBytesReader = (oid: string) => Uint8Array | Promise<Uint8Array>;

const DIRECTORY = 4;
const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** A growable byte column. */
class ByteColumn {
  bytes: Uint8Array;
  length = 0;

  constructor(capacity: number) {
    this.bytes = new Uint8Array(capacity);
  }

  /** Room for `extra` more bytes; returns the (possibly new) buffer to write into at `length`. */
  reserve(extra: number): Uint8Array {
    const needed = this.length + extra;
    if (needed > this.bytes.length) {
      const grown = new Uint8Array(Math.max(needed, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    return this.bytes;
  }

  view(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

interface Frame {
  /** Hex, or the raw 20 bytes (made hex only for an error). */
  oid: string | Uint8Array;
  tree: Uint8Array;
  /** Where the next entry starts. */
  at: number;
  /** Length of this tree's path prefix (with its trailing "/") in the path buffer. */
  prefixLength: number;
  /** Files written before this tree was entered. */
  countAtEntry: number;
}

/**
 * The files below `root` (every entry that is not a tree: regular files, symlinks, gitlinks),
 * depth first in tree order, which is git's path order. Paths start with `prefix` + "/" when a
 * prefix is given. A malformed tree is OBJECT_CORRUPT; a name that is not UTF-8 is
 * TREE_ENTRY_INVALID, as when the tree is parsed.
 */
export async function listTreeFiles(root: string, read: TreeBytesReader, options: ListTreeFilesOptions = {}): Promise<TreeFiles> {
  const files = await scanTrees(root, read, options, false);
  if ((options.isUtf8 ?? isUtf8)(files.paths)) return files;
  // Some name is not UTF-8: scan again checking every name, to say which tree holds it.
  await scanTrees(root, read, options, true);
  throw nameNotUtf8(root);
}

export interface ListTreeFilesOptions {
  /** Paths start with `prefix` + "/". */
  prefix?: string;
  /**
   * A tree's bytes by its raw oid where that is quicker (a pack lookup takes the raw bytes), or
   * null to read it by hex through the reader: no hex string per tree and back.
   */
  readRaw?: (oid: Uint8Array) => Uint8Array | null;
  /** Native hex where the platform has it. */
  hex?: (bytes: Uint8Array) => string;
  /** Native UTF-8 validation where the platform has it. */
  isUtf8?: (bytes: Uint8Array) => boolean;
}

async function scanTrees(root: string, read: TreeBytesReader, options: ListTreeFilesOptions, checkNames: boolean): Promise<TreeFiles> {
  const hex = options.hex ?? toHex;
  const readRaw = options.readRaw;
  const scanner = new TreeScanner(options.prefix ?? '', checkNames, hex);
  const rootTree = read(root);
  scanner.enter(root, rootTree instanceof Uint8Array ? rootTree : await rootTree, scanner.rootPrefixLength);
  for (;;) {
    const next = scanner.scan();
    if (next === null) return scanner.files();
    const raw = readRaw?.(next.oid) ?? null;
    if (raw !== null) {
      scanner.enter(next.oid, raw, next.prefixLength);
    } else {
      const oid = hex(next.oid);
      const tree = read(oid);
      scanner.enter(oid, tree instanceof Uint8Array ? tree : await tree, next.prefixLength);
    }
  }
}

/** The subtree the scan stopped at: its raw oid and the length of its path prefix. */
interface Subtree {
  oid: Uint8Array;
  prefixLength: number;
}

/**
 * The scan itself: a small synchronous loop, which V8 optimizes while it runs (it does not
 * compile a running async function's loop; and with the tree reads inlined into it, compiling
 * it took 20-50 ms), so reading the trees is left to the caller. Names and oids (10-20 bytes)
 * are copied by hand: a subarray view per copy cost more than the copy. A file's path prefix is
 * not copied byte by byte: `copyWithin` takes it from the last path written below the same tree.
 */
class TreeScanner {
  private readonly modes = new ByteColumn(1024);
  private readonly oids = new ByteColumn(20 * 1024);
  private readonly paths = new ByteColumn(32 * 1024);
  /** The prefix of the tree being entered (for its first file). */
  private path = new Uint8Array(256);
  private readonly stack: Frame[] = [];
  private count = 0;
  /** Where the last path written starts in the paths column. */
  private lastPath = 0;
  readonly rootPrefixLength: number = 0;

  constructor(
    prefix: string,
    /** Check each name's UTF-8 as it is met (the slow pass that names the tree at fault). */
    private readonly checkNames: boolean,
    private readonly hex: (bytes: Uint8Array) => string,
  ) {
    if (prefix !== '') {
      const bytes = encoder.encode(`${prefix}/`);
      this.path = new Uint8Array(Math.max(256, bytes.length * 2));
      this.path.set(bytes);
      this.rootPrefixLength = bytes.length;
    }
  }

  enter(oid: string | Uint8Array, tree: Uint8Array, prefixLength: number): void {
    // One kind of array (not Node's Buffer subclass as well), so that the loop stays monomorphic.
    const bytes = tree.constructor === Uint8Array ? tree : new Uint8Array(tree.buffer, tree.byteOffset, tree.byteLength);
    this.stack.push({ oid, tree: bytes, at: 0, prefixLength, countAtEntry: this.count });
  }

  /** Scans until every tree is done (null) or until it meets a subtree, which the caller enters. */
  scan(): Subtree | null {
    const { stack, modes, oids, paths } = this;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const tree = frame.tree;
      const size = tree.length;
      const at = frame.at;
      if (at >= size) {
        stack.pop();
        continue;
      }
      const space = tree.indexOf(0x20, at);
      const nul = space < 0 ? -1 : tree.indexOf(0, space + 1);
      if (nul < 0 || nul + 21 > size) throw corrupt(this.oidText(frame), 'truncated tree entry');
      const code = modeCode(tree, at, space);
      if (code < 0) throw corrupt(this.oidText(frame), `unknown mode ${String.fromCharCode(...tree.subarray(at, Math.min(space, at + 16)))}`);
      if (this.checkNames) checkUtf8(tree, space + 1, nul, this.oidText(frame));
      frame.at = nul + 21;
      const prefixLength = frame.prefixLength;
      if (code === DIRECTORY) {
        // The subtree's prefix, for its first file: this tree's prefix, the name, "/".
        const end = prefixLength + nul - space;
        if (this.path.length < end) {
          const grown = new Uint8Array(2 * end);
          grown.set(this.path.subarray(0, prefixLength));
          this.path = grown;
        }
        const path = this.path;
        for (let k = space + 1, w = prefixLength; k < nul; k++) path[w++] = tree[k]!;
        path[end - 1] = 0x2f;
        return { oid: tree.subarray(nul + 1, nul + 21), prefixLength: end };
      }
      const out = paths.reserve(prefixLength + nul - space);
      let w = paths.length;
      if (this.count > 0) out[w++] = 0;
      // The prefix: from the last path written when it lies below this tree (every path written
      // since this tree was entered starts with its prefix), else from the path buffer.
      if (this.count > frame.countAtEntry) {
        out.copyWithin(w, this.lastPath, this.lastPath + prefixLength);
      } else {
        const path = this.path;
        for (let i = 0; i < prefixLength; i++) out[w + i] = path[i]!;
      }
      this.lastPath = w;
      w += prefixLength;
      for (let k = space + 1; k < nul; k++) out[w++] = tree[k]!;
      paths.length = w;
      modes.reserve(1)[modes.length++] = code;
      const raw = oids.reserve(20);
      for (let i = 0, o = oids.length; i < 20; i++) raw[o + i] = tree[nul + 1 + i]!;
      oids.length += 20;
      this.count++;
    }
    return null;
  }

  private oidText(frame: Frame): string {
    return typeof frame.oid === 'string' ? frame.oid : this.hex(frame.oid);
  }

  files(): TreeFiles {
    return { count: this.count, modes: this.modes.view(), oids: this.oids.view(), paths: this.paths.view() };
  }
}

/** The mode's code (4 for a tree, else an index into FILE_MODES), or -1; the modes parseTree accepts. */
export function modeCode(tree: Uint8Array, start: number, end: number): number {
  const length = end - start;
  const c0 = tree[start]!;
  if (length === 5 || (length === 6 && c0 === 0x30)) {
    // "40000" as git writes it, or "040000"
    const s = length === 6 ? start + 1 : start;
    return tree[s] === 0x34 && tree[s + 1] === 0x30 && tree[s + 2] === 0x30 && tree[s + 3] === 0x30 && tree[s + 4] === 0x30 ? DIRECTORY : -1;
  }
  if (length !== 6 || c0 !== 0x31) return -1;
  const c1 = tree[start + 1]!;
  const c2 = tree[start + 2]!;
  const c3 = tree[start + 3]!;
  const c4 = tree[start + 4]!;
  const c5 = tree[start + 5]!;
  if (c1 === 0x30 && c2 === 0x30 && c3 === 0x36 && c4 === 0x34 && c5 === 0x34) return 0; // 100644
  if (c1 === 0x30 && c2 === 0x30 && c3 === 0x37 && c4 === 0x35 && c5 === 0x35) return 1; // 100755
  if (c1 === 0x32 && c2 === 0x30 && c3 === 0x30 && c4 === 0x30 && c5 === 0x30) return 2; // 120000
  if (c1 === 0x36 && c2 === 0x30 && c3 === 0x30 && c4 === 0x30 && c5 === 0x30) return 3; // 160000
  return -1;
}

/** Names must be UTF-8 (the engine's paths are strings), as parseTree requires. */
function checkUtf8(bytes: Uint8Array, start: number, end: number, oid: string): void {
  try {
    strictDecoder.decode(bytes.subarray(start, end));
  } catch {
    throw nameNotUtf8(oid);
  }
}
