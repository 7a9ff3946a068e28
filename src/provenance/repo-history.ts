/**
 * The history `Blamer` walks, read from a repository: commits, the blob at a path (trees read
 * once each, by oid), and git blame's rename following for a path a parent lacks — the file
 * deleted between them whose content is the same, else the most similar one at git's 50%.
 */
import { diffTrees, type Repository } from '../git';
import { DEFAULT_RENAME_SCORE, similarity } from '../branches/similarity';
import type { BlameHistory } from './blame';

const FILE_MODES = new Set(['100644', '100755', '120000']);

export class RepositoryHistory implements BlameHistory {
  private readonly commits = new Map<string, { parents: readonly string[]; time: number; tree: string }>();

  constructor(private readonly repo: Repository) {}

  async commit(oid: string): Promise<{ parents: readonly string[]; time: number; tree: string }> {
    let found = this.commits.get(oid);
    if (!found) {
      const links = await this.repo.readCommit(oid);
      found = { parents: links.parents, time: links.committer.timestamp, tree: links.tree };
      this.commits.set(oid, found);
    }
    return found;
  }

  async fileAt(commit: string, path: string): Promise<string | null> {
    let tree = (await this.commit(commit)).tree;
    const parts = path.split('/');
    for (let i = 0; i < parts.length; i++) {
      const entry = (await this.repo.readTree(tree)).find((e) => e.name === parts[i]);
      if (!entry) return null;
      if (i === parts.length - 1) return FILE_MODES.has(entry.mode) ? entry.oid : null;
      if (entry.mode !== '040000') return null;
      tree = entry.oid;
    }
    return null;
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
