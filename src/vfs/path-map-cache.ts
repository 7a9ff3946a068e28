/**
 * The flattened listing of a root tree (every file's mode, oid and path), kept on disk under
 * `<commondir>/forge/cache/paths/<tree oid>` after the first full walk. A tree never changes,
 * so an entry can never be stale; a later cold listing reads one file instead of inflating
 * every tree of the repository (2,500 trees for 50,000 files). Like git's cache-tree, it is
 * derived data: missing, unreadable or mismatching files are ignored and rebuilt.
 * Format (text, one line per file in git's path order): a header
 * `forge-paths 1 <tree oid> <count>`, then `<mode> <oid>\t<path>`.
 */
import { dirname, errnoCode, joinPath, type GitFs } from '../git';
import type { EntryMode, VfsEntry } from './types';
import { entryType } from './entry-type';

const KEEP = 16;

export class PathMapCache {
  private readonly dir: string;

  constructor(
    private readonly fs: GitFs,
    commonDir: string,
  ) {
    this.dir = joinPath(commonDir, 'forge', 'cache', 'paths');
  }

  async load(tree: string): Promise<VfsEntry[] | null> {
    let text: string;
    try {
      text = await this.fs.promises.readFile(joinPath(this.dir, tree), 'utf8');
    } catch {
      return null;
    }
    const lines = text.split('\n');
    const header = lines[0]!.split(' ');
    const count = Number(header[3]);
    if (header[0] !== 'forge-paths' || header[1] !== '1' || header[2] !== tree || lines.length !== count + 2 || lines[count + 1] !== '') return null;
    const out: VfsEntry[] = new Array(count);
    for (let i = 0; i < count; i++) {
      const line = lines[i + 1]!;
      const tab = line.indexOf('\t');
      const mode = line.slice(0, 6) as EntryMode;
      const path = line.slice(tab + 1);
      out[i] = { name: path.slice(path.lastIndexOf('/') + 1), path, type: entryType(mode), mode, oid: line.slice(7, tab) };
    }
    return out;
  }

  /** Best effort: a listing that cannot be written only costs the next cold walk. */
  async store(tree: string, entries: readonly VfsEntry[]): Promise<void> {
    if (entries.some((e) => e.path.includes('\n'))) return;
    const body = entries.map((e) => `${e.mode} ${e.oid}\t${e.path}`).join('\n');
    const text = `forge-paths 1 ${tree} ${entries.length}\n${body}${entries.length > 0 ? '\n' : ''}`;
    const path = joinPath(this.dir, tree);
    const tmp = `${path}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      await this.fs.promises.mkdir(dirname(path), { recursive: true });
      await this.fs.promises.writeFile(tmp, text);
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
