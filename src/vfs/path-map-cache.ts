/**
 * The flattened listing of a root tree (every file's mode, oid and path), kept on disk under
 * `<commondir>/forge/cache/paths/<tree oid>` after the first full walk. A tree never changes,
 * so an entry can never be stale; a later cold listing reads one file instead of inflating
 * every tree of the repository (2,500 trees for 50,000 files). Like git's cache-tree, it is
 * derived data: missing, unreadable or mismatching files are ignored and rebuilt.
 *
 * Format 2, in columns so that both writing and reading are a few whole-buffer operations (the
 * line-per-file text of format 1 cost ~40 ms to build and ~30 ms to split for 50,000 files):
 * a header line `forge-paths 2 <tree oid> <count> <path bytes>`, then one mode code per file
 * (1 byte), the raw oids (20 bytes each), then the paths in git's order as UTF-8 separated by
 * NUL (the one byte a git path cannot hold).
 */
import { dirname, errnoCode, fromHex, joinPath, toHex, type ByteText, type GitFs } from '../git';
import type { EntryMode, VfsEntry } from './types';
import { entryType } from './entry-type';

const KEEP = 16;
const MODES: readonly EntryMode[] = ['100644', '100755', '120000', '160000'];
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class PathMapCache {
  private readonly dir: string;

  constructor(
    private readonly fs: GitFs,
    commonDir: string,
    /** Native whole-buffer hex where the platform has it. */
    private readonly text?: ByteText,
  ) {
    this.dir = joinPath(commonDir, 'forge', 'cache', 'paths');
  }

  async load(tree: string): Promise<VfsEntry[] | null> {
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.promises.readFile(joinPath(this.dir, tree));
    } catch {
      return null;
    }
    try {
      return this.parse(tree, bytes);
    } catch {
      return null; // not UTF-8: damaged
    }
  }

  private parse(tree: string, bytes: Uint8Array): VfsEntry[] | null {
    const newline = bytes.indexOf(0x0a);
    if (newline < 0) return null;
    const header = decoder.decode(bytes.subarray(0, newline)).split(' ');
    const count = Number(header[3]);
    const pathBytes = Number(header[4]);
    const modesAt = newline + 1;
    const oidsAt = modesAt + count;
    const pathsAt = oidsAt + count * 20;
    if (header[0] !== 'forge-paths' || header[1] !== '2' || header[2] !== tree || !Number.isInteger(count) || !Number.isInteger(pathBytes) || pathsAt + pathBytes !== bytes.length) return null;
    if (count === 0) return [];
    const oids = this.text ? this.text.hex(bytes.subarray(oidsAt, pathsAt)) : toHex(bytes.subarray(oidsAt, pathsAt));
    const paths = decoder.decode(bytes.subarray(pathsAt)).split('\0');
    if (paths.length !== count) return null;
    const out: VfsEntry[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const mode = MODES[bytes[modesAt + i]!];
      if (mode === undefined) return null;
      const path = paths[i]!;
      out[i] = { name: path.slice(path.lastIndexOf('/') + 1), path, type: entryType(mode), mode, oid: oids.slice(i * 40, i * 40 + 40) };
    }
    return out;
  }

  /** Best effort: a listing that cannot be written only costs the next cold walk. */
  async store(tree: string, entries: readonly VfsEntry[]): Promise<void> {
    const count = entries.length;
    const modes = new Uint8Array(count);
    const oids = new Array<string>(count);
    const paths = new Array<string>(count);
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!;
      const code = MODES.indexOf(entry.mode);
      if (code < 0) return;
      modes[i] = code;
      oids[i] = entry.oid;
      paths[i] = entry.path;
    }
    const allOids = oids.join('');
    const oidBytes = this.text ? this.text.hexToBytes(allOids) : fromHex(allOids);
    const pathBytes = encoder.encode(paths.join('\0'));
    if (oidBytes.length !== count * 20) return;
    const header = encoder.encode(`forge-paths 2 ${tree} ${count} ${pathBytes.length}\n`);
    const file = new Uint8Array(header.length + count * 21 + pathBytes.length);
    file.set(header, 0);
    file.set(modes, header.length);
    file.set(oidBytes, header.length + count);
    file.set(pathBytes, header.length + count * 21);
    const path = joinPath(this.dir, tree);
    const tmp = `${path}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await this.fs.promises.mkdir(dirname(path), { recursive: true });
      await this.fs.promises.writeFile(tmp, file);
      await this.fs.promises.rename(tmp, path);
      await this.prune();
    } catch (error) {
      await this.fs.promises.unlink(tmp).catch(() => undefined);
      if (errnoCode(error) === undefined) throw error;
    }
  }

  /** Keeps the most recently written listings; older ones are rebuilt if ever needed again. */
  private async prune(): Promise<void> {
    const names = (await this.fs.promises.readdir(this.dir)).filter((n) => /^[0-9a-f]{40}$/.test(n));
    if (names.length <= KEEP) return;
    const dated = await Promise.all(names.map(async (name) => ({ name, mtime: (await this.fs.promises.stat(joinPath(this.dir, name))).mtimeMs ?? 0 })));
    dated.sort((a, b) => b.mtime - a.mtime);
    for (const { name } of dated.slice(KEEP)) await this.fs.promises.unlink(joinPath(this.dir, name)).catch(() => undefined);
  }
}
