/**
 * Whether a tip reaches a complete history, as git's check_connected (`rev-list --objects
 * <tips> --not --all`) decides before a fetch moves a ref: every object reachable from the tip
 * must be present, in the quarantine (received, not yet stored) or in the object store, except
 * below commits that a local ref already reaches (a ref only ever moves onto a complete
 * history, so those are whole). An object that is in the store but reached from no ref is NOT
 * trusted: a fetch killed while it stored a pack can leave a commit without its trees.
 *
 * The commits the tip reaches and no local ref does are found by the painting walk of
 * commit-walk.ts; of each one's tree only what differs from the same path in a parent's tree is
 * visited (the parent is either whole or visited too), so the cost follows what changed.
 */
import type { ObjectType, Repository, TreeEntry } from '../git';
import { parseCommitLinks, parseTree } from '../git/object-codec';
import { leftRight, type CommitInfo } from './commit-walk';
import type { Quarantine } from './pack-unpack';

export interface ConnectivityProblem {
  oid: string;
  /** What the object was expected to be. */
  type: ObjectType;
  /** How it was reached: `<commit> tree`, `<commit> parent`, `<tree> src/app.js`. */
  via: string;
  reason: 'missing' | 'wrong-type';
}

class Unreachable extends Error {
  constructor(readonly problem: ConnectivityProblem) {
    super(`${problem.reason} ${problem.type} ${problem.oid}`);
  }
}

/** The local tips whose history is trusted whole: branches and remote-tracking refs that name commits. */
export async function trustedTips(repo: Repository): Promise<string[]> {
  const tips = new Set<string>();
  for (const prefix of ['refs/heads/', 'refs/remotes/']) {
    for (const { oid } of await repo.refs.list(prefix)) tips.add(oid);
  }
  const out: string[] = [];
  for (const oid of tips) {
    const object = await repo.objects.read(oid).catch(() => null);
    if (object?.type === 'commit') out.push(oid);
  }
  return out;
}

/** The first object missing below `tips`, or null when each tip reaches a complete history. */
export async function findUnconnected(repo: Repository, quarantine: Quarantine, tips: readonly string[], trusted: readonly string[]): Promise<ConnectivityProblem | null> {
  const read = async (oid: string, type: ObjectType, via: string): Promise<Uint8Array> => {
    const held = quarantine.get(oid);
    const object = held ?? (await repo.objects.read(oid).catch(() => null));
    if (object === null) throw new Unreachable({ oid, type, via, reason: 'missing' });
    if (object.type !== type) throw new Unreachable({ oid, type, via, reason: 'wrong-type' });
    return object.content;
  };
  const commits = new Map<string, { info: CommitInfo; tree: string }>();
  const loadCommit = async (oid: string, via: string) => {
    let commit = commits.get(oid);
    if (commit === undefined) {
      const content = await read(oid, 'commit', via);
      const links = parseCommitLinks(content, oid);
      // The tree line is first (fsck checked received commits; local ones were written by git or forge).
      const tree = String.fromCharCode(...content.subarray(5, 45));
      commit = { info: links, tree };
      commits.set(oid, commit);
    }
    return commit;
  };
  const trees = new Map<string, readonly TreeEntry[]>();
  const loadTree = async (oid: string, via: string) => {
    let entries = trees.get(oid);
    if (entries === undefined) {
      entries = quarantine.has(oid) ? parseTree(await read(oid, 'tree', via), oid) : await treeFromStore(repo, oid, via);
      trees.set(oid, entries);
    }
    return entries;
  };
  const hasBlob = async (oid: string, via: string) => {
    const held = quarantine.get(oid);
    if (held !== undefined) {
      if (held.type !== 'blob') throw new Unreachable({ oid, type: 'blob', via, reason: 'wrong-type' });
    } else if (!(await repo.objects.has(oid))) {
      throw new Unreachable({ oid, type: 'blob', via, reason: 'missing' });
    }
  };

  try {
    for (const tip of tips) await loadCommit(tip, 'the fetched tip');
    // Commits reachable from the tips and from no trusted ref: each is checked whole.
    const viaParent = new Map<string, string>();
    const loader = async (oid: string): Promise<CommitInfo> => {
      const commit = await loadCommit(oid, viaParent.get(oid) ?? 'a parent');
      for (const parent of commit.info.parents) if (!viaParent.has(parent)) viaParent.set(parent, `${oid} parent`);
      return commit.info;
    };
    const { left } = await leftRight(loader, tips, trusted, { leftOnly: true });
    const visited = new Set<string>();
    for (const oid of left) {
      const commit = commits.get(oid)!;
      const parentTrees: string[] = [];
      for (const parent of commit.info.parents) parentTrees.push((await loadCommit(parent, `${oid} parent`)).tree);
      await checkTree(commit.tree, parentTrees, `${oid} tree`);
    }

    async function checkTree(tree: string, parentTrees: readonly string[], via: string): Promise<void> {
      if (parentTrees.includes(tree) || visited.has(tree)) return;
      visited.add(tree);
      const entries = await loadTree(tree, via);
      const parents: Array<Map<string, TreeEntry>> = [];
      for (const p of parentTrees) parents.push(new Map((await loadTree(p, via)).map((e) => [e.name, e])));
      for (const entry of entries) {
        if (entry.mode === '160000') continue;
        const same = parents.map((m) => m.get(entry.name)).filter((e): e is TreeEntry => e !== undefined && e.mode === entry.mode);
        const path = `${tree} ${entry.name}`;
        if (entry.mode === '040000') await checkTree(entry.oid, same.map((e) => e.oid), path);
        else if (!same.some((e) => e.oid === entry.oid) && !visited.has(entry.oid)) {
          await hasBlob(entry.oid, path);
          visited.add(entry.oid);
        }
      }
    }
  } catch (error) {
    if (error instanceof Unreachable) return error.problem;
    throw error;
  }
  return null;
}

async function treeFromStore(repo: Repository, oid: string, via: string): Promise<readonly TreeEntry[]> {
  const object = await repo.objects.read(oid).catch(() => null);
  if (object === null) throw new Unreachable({ oid, type: 'tree', via, reason: 'missing' });
  if (object.type !== 'tree') throw new Unreachable({ oid, type: 'tree', via, reason: 'wrong-type' });
  return repo.readTree(oid);
}
