/**
 * The flattened listing of a root tree (every file's mode, oid and path), kept on disk under
 * `<commondir>/forge/cache/paths/<tree oid>` after the first full walk. A tree never changes,
 * so an entry can never be stale; a later cold listing reads one file instead of inflating
 * every tree of the repository (2,500 trees for 50,000 files). Like git's cache-tree, it is
 * derived data: missing, unreadable or mismatching files are ignored and rebuilt.
 *
 * Format 2 is the TreeFiles columns (git/tree-files.ts) behind a header, so that writing is one
 * copy and reading a few whole-buffer views (the line-per-file text of format 1 cost ~40 ms to
 * build and ~30 ms to split for 50,000 files): a header line
 * `forge-paths 2 <tree oid> <count> <path bytes>`, then one mode code per file (1 byte), the raw
 * oids (20 bytes each), then the paths in git's order as UTF-8 separated by NUL (the one byte a
 * git path cannot hold). The content is checked when it is decoded (file-entries.ts).
 */
import { dirname, errnoCode, joinPath, mkdirp, type GitFs, type TreeFiles } from '../git';

const KEEP = 16;
const encoder = new TextEncoder();
const headerText = new TextDecoder('utf-8', { ignoreBOM: true });

export class PathMapCache {
  private readonly dir: string;

  constructor(
    private readonly fs: GitFs,
    commonDir: string,
  ) {
    this.dir = joinPath(commonDir, 'forge', 'cache', 'paths');
  }

  /** The stored listing of a tree, as views into the file's bytes; null when missing or damaged. */
  async load(tree: string): Promise<TreeFiles | null> {
    let bytes: Uint8Array;
    try {
      bytes = await this.fs.promises.readFile(joinPath(this.dir, tree));
    } catch {
      return null;
    }
    return parsePathMap(tree, bytes);
  }

  /** Best effort: a listing that cannot be written only costs the next cold walk. */
  async store(tree: string, files: TreeFiles): Promise<void> {
    const { count, modes, oids, paths } = files;
    const header = encoder.encode(`forge-paths 2 ${tree} ${count} ${paths.length}\n`);
    const file = new Uint8Array(header.length + count * 21 + paths.length);
    file.set(header, 0);
    file.set(modes.subarray(0, count), header.length);
    file.set(oids.subarray(0, count * 20), header.length + count);
    file.set(paths, header.length + count * 21);
    const path = joinPath(this.dir, tree);
    const tmp = `${path}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await mkdirp(this.fs, dirname(path));
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

/** The columns of a format-2 file, checked against its header (the content is checked when decoded). */
function parsePathMap(tree: string, bytes: Uint8Array): TreeFiles | null {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0) return null;
  const header = headerText.decode(bytes.subarray(0, newline)).split(' ');
  const count = Number(header[3]);
  const pathBytes = Number(header[4]);
  const modesAt = newline + 1;
  const oidsAt = modesAt + count;
  const pathsAt = oidsAt + count * 20;
  if (header[0] !== 'forge-paths' || header[1] !== '2' || header[2] !== tree || !Number.isInteger(count) || !Number.isInteger(pathBytes) || pathsAt + pathBytes !== bytes.length) return null;
  return { count, modes: bytes.subarray(modesAt, oidsAt), oids: bytes.subarray(oidsAt, pathsAt), paths: bytes.subarray(pathsAt) };
}
