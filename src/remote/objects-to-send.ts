/**
 * The objects a push must send: the commits the remote does not reach, and of their trees only
 * what differs from the same path in a parent's tree (a parent is on the remote or sent too, so
 * everything equal to it is there). An object that moved to another path may be sent although
 * the remote has it: harmless, as git's own pack-objects can do too.
 */
import type { Repository } from '../git';
import { commitLoader, leftRight } from './commit-walk';

const GITLINK = '160000';

export interface ObjectToSend {
  oid: string;
  /** The same path's object in a parent (on the remote or sent too): a good delta base. */
  base?: string;
}

export async function objectsToSend(repo: Repository, tips: readonly string[], remoteHas: readonly string[]): Promise<ObjectToSend[]> {
  const known: string[] = [];
  for (const oid of remoteHas) if (await repo.objects.has(oid)) known.push(oid);
  const commits = (await leftRight(commitLoader(repo), tips, known)).left;
  const out: ObjectToSend[] = [];
  const seen = new Set<string>();
  const add = (oid: string, base?: string) => {
    if (seen.has(oid)) return false;
    seen.add(oid);
    out.push(base !== undefined ? { oid, base } : { oid });
    return true;
  };
  for (const oid of commits) add(oid);
  for (const oid of commits) {
    const commit = await repo.readCommit(oid);
    const parentTrees: string[] = [];
    for (const parent of commit.parents) parentTrees.push((await repo.readCommit(parent)).tree);
    await addTree(repo, commit.tree, parentTrees, add);
  }
  return out;
}

async function addTree(repo: Repository, tree: string, parentTrees: readonly string[], add: (oid: string, base?: string) => boolean): Promise<void> {
  if (parentTrees.includes(tree) || !add(tree, parentTrees[0])) return;
  const parents = await Promise.all(parentTrees.map((t) => repo.readTree(t)));
  const byName = parents.map((entries) => new Map(entries.map((e) => [e.name, e])));
  for (const entry of await repo.readTree(tree)) {
    if (entry.mode === GITLINK) continue;
    const same = byName.map((m) => m.get(entry.name)).filter((e) => e !== undefined);
    if (entry.mode === '040000') {
      await addTree(repo, entry.oid, same.filter((e) => e.mode === '040000').map((e) => e.oid), add);
    } else if (!same.some((e) => e.oid === entry.oid)) {
      add(entry.oid, same.find((e) => e.mode !== '040000' && e.mode !== GITLINK)?.oid);
    }
  }
}
