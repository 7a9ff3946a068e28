/**
 * The history `Blamer` walks, read from a repository: commits, the blob at a path (trees read
 * once each, by oid), and git blame's rename following for a path a parent lacks — the file
 * deleted between them whose content is the same, else the most similar one at git's 50%.
 */
import { diffTrees, type Repository } from '../git';
import { DEFAULT_RENAME_SCORE, similarity } from '../branches/similarity';
import type { BlameHistory } from './blame';
import { buildChangedPathFilter, MAX_CHANGED_PATHS, mayHaveChanged } from '../git/changed-path-filter';
import { changedFiles } from '../git/changed-files';
import type { ChangedPathCache } from './changed-path-cache';
import { WeightedLru } from '../git/lru';

const FILE_MODES = new Set(['100644', '100755', '120000']);
const ENTRY_CACHE = 50_000;
/**
 * A filter costs a whole diff of the commit's trees, several times the one path lookup the walk
 * needs without it: a first walk down 4,000 commits that built them all took ~5x as long. So one
 * walk builds at most this many (the newest commits it visits, which later walks pass first)
 * and reads the rest the old way; the next walks extend the cache from there.
 */
export const NEW_FILTERS_PER_WALK = 1000;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/**
 * The entry named `name` in a tree's bytes (`<mode> <name>\0<20-byte oid>` each), its mode as
 * written (`40000` for a tree) and hex oid; null when there is none.
 */
export function findTreeEntry(tree: Uint8Array, name: Uint8Array): { mode: string; oid: string } | null {
  let i = 0;
  while (i < tree.length) {
    const space = tree.indexOf(0x20, i);
    if (space < 0) return null;
    const nul = tree.indexOf(0, space);
    if (nul < 0 || nul + 21 > tree.length) return null;
    if (nul - space - 1 === name.length) {
      let same = true;
      for (let k = 0; k < name.length; k++) {
        if (tree[space + 1 + k] !== name[k]) {
          same = false;
          break;
        }
      }
      if (same) {
        let mode = '';
        for (let k = i; k < space; k++) mode += String.fromCharCode(tree[k]!);
        let oid = '';
        for (let k = nul + 1; k < nul + 21; k++) oid += HEX[tree[k]!];
        return { mode, oid };
      }
    }
    i = nul + 21;
  }
  return null;
}

export class RepositoryHistory implements BlameHistory {
  private readonly commits = new Map<string, { parents: readonly string[]; time: number; tree: string }>();
  /** tree oid + '/' + name -> the entry (mode as written in the tree) or null; bounded. */
  private readonly entries = new Map<string, { mode: string; oid: string } | null>();
  private readonly parts = new Map<string, Array<{ text: string; bytes: Uint8Array }>>();
  /**
   * Raw trees the filters were computed from: a walk diffs each commit against its parent, and
   * the parent is the next commit's, so each tree would otherwise be inflated twice.
   */
  private readonly rawTrees = new WeightedLru<string, Uint8Array>(16 * 1024 * 1024, (t) => 64 + t.length);

  /** How many more commits' filters this walk may still compute (see `NEW_FILTERS_PER_WALK`). */
  private buildBudget: number;

  /**
   * `filters`: the changed-path filters to consult and extend (none: every parent's tree is read);
   * `newFiltersPerWalk`: how many missing ones one walk computes at most.
   */
  constructor(
    private readonly repo: Repository,
    private readonly filters?: ChangedPathCache,
    newFiltersPerWalk = NEW_FILTERS_PER_WALK,
  ) {
    this.buildBudget = newFiltersPerWalk;
  }

  /**
   * Whether `path` surely did not change between `commit` and its first parent, from the
   * commit's changed-path filter (computed from the two trees' bytes the first time, then kept).
   */
  async unchangedFromFirstParent(commit: string, path: string): Promise<boolean> {
    if (!this.filters) return false;
    await this.filters.load();
    let record = this.filters.get(commit);
    if (record === undefined) {
      if (this.buildBudget <= 0) return false;
      this.buildBudget--;
      const links = await this.commit(commit);
      if (links.parents.length === 0) return false;
      const parentTree = (await this.commit(links.parents[0]!)).tree;
      const files = await changedFiles((oid) => this.rawTree(oid), parentTree, links.tree, MAX_CHANGED_PATHS);
      record = { tree: links.tree, parents: [...links.parents], time: links.time, filter: buildChangedPathFilter(files) };
      this.filters.put(commit, record);
    }
    return !mayHaveChanged(record.filter, path);
  }

  private async rawTree(oid: string): Promise<Uint8Array> {
    let bytes = this.rawTrees.get(oid);
    if (bytes === undefined) {
      bytes = await this.repo.objects.readTypedNow(oid, 'tree');
      this.rawTrees.set(oid, bytes);
    }
    return bytes;
  }

  /** A commit's links: from the filter cache's record where it has one, else its object. */
  async commit(oid: string): Promise<{ parents: readonly string[]; time: number; tree: string }> {
    let found = this.commits.get(oid);
    if (!found) {
      if (this.filters) await this.filters.load();
      found = this.filters?.get(oid) ?? (await this.repo.readCommitLinks(oid));
      this.commits.set(oid, found);
    }
    return found;
  }

  /**
   * The blob at `path`, found in each tree's bytes without parsing its other entries: a walk
   * down 4,000 commits of a 35,000-file repository reads a new root tree at every one of them,
   * and parsing those (an entry object and strings per name) was most of `forge why`'s time.
   */
  async fileAt(commit: string, path: string): Promise<string | null> {
    let tree = (await this.commit(commit)).tree;
    const parts = this.pathParts(path);
    for (let i = 0; i < parts.length; i++) {
      const key = `${tree}/${parts[i]!.text}`;
      let entry = this.entries.get(key);
      if (entry === undefined) {
        const bytes = await this.repo.objects.readTypedNow(tree, 'tree');
        entry = findTreeEntry(bytes, parts[i]!.bytes);
        this.entries.set(key, entry);
        if (this.entries.size > ENTRY_CACHE) this.entries.delete(this.entries.keys().next().value!);
      }
      if (entry === null) return null;
      if (i === parts.length - 1) return /^100[0-7]{3}$|^120000$/.test(entry.mode) ? entry.oid : null;
      if (entry.mode !== '40000' && entry.mode !== '040000') return null;
      tree = entry.oid;
    }
    return null;
  }

  private pathParts(path: string): Array<{ text: string; bytes: Uint8Array }> {
    let parts = this.parts.get(path);
    if (!parts) {
      const encoder = new TextEncoder();
      parts = path.split('/').map((text) => ({ text, bytes: encoder.encode(text) }));
      this.parts.set(path, parts);
    }
    return parts;
  }

  async renamedFrom(parent: string, commit: string, path: string): Promise<string | null> {
    const target = await this.fileAt(commit, path);
    if (target === null) return null;
    const changes = await diffTrees(this.repo, (await this.commit(parent)).tree, (await this.commit(commit)).tree);
    const deleted = changes.filter((c) => c.kind === 'deleted' && c.oldOid !== undefined && FILE_MODES.has(c.oldMode ?? ''));
    const exact = deleted.find((c) => c.oldOid === target);
    if (exact) return exact.path;
    const bytes = await this.repo.readBlob(target);
    let best: { path: string; score: number } | null = null;
    for (const candidate of deleted) {
      const score = similarity(await this.repo.readBlob(candidate.oldOid!), bytes);
      if (score >= DEFAULT_RENAME_SCORE && (best === null || score > best.score)) best = { path: candidate.path, score };
    }
    return best?.path ?? null;
  }

  blob(oid: string): Promise<Uint8Array> {
    return this.repo.readBlob(oid);
  }
}
