/**
 * Merge bases by walking the commit graph the way git does (commit-reach.c
 * paint_down_to_common + remove_redundant): commits are visited newest first (committer date),
 * painted with the side(s) that reach them; a commit reached from both sides is a candidate and
 * its ancestors are stale. Candidates reachable from another candidate are dropped. More than
 * one base left is a criss-cross history.
 */
import type { Repository } from '../git';

export interface CommitGraph {
  parents(oid: string): Promise<readonly string[]>;
  /** Committer time, seconds. */
  time(oid: string): Promise<number>;
}

const P1 = 1;
const P2 = 2;
const STALE = 4;
const RESULT = 8;

/** A commit graph over a repository, caching parsed commits for the life of the object. */
export function repositoryGraph(repo: Repository): CommitGraph {
  const cache = new Map<string, { parents: readonly string[]; time: number }>();
  const load = async (oid: string) => {
    let c = cache.get(oid);
    if (c === undefined) {
      c = await repo.readCommitLinks(oid);
      cache.set(oid, c);
    }
    return c;
  };
  return { parents: async (oid) => (await load(oid)).parents, time: async (oid) => (await load(oid)).time };
}

class Queue {
  private readonly items: Array<{ oid: string; time: number; seq: number }> = [];
  private seq = 0;

  push(oid: string, time: number): void {
    // Newest first; among equal times, first in first out (git's prio_queue with insertion order).
    const item = { oid, time, seq: this.seq++ };
    let lo = 0;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = this.items[mid]!;
      if (m.time > time || (m.time === time && m.seq < item.seq)) lo = mid + 1;
      else hi = mid;
    }
    this.items.splice(lo, 0, item);
  }

  pop(): string | undefined {
    return this.items.shift()?.oid;
  }

  get size(): number {
    return this.items.length;
  }

  oids(): string[] {
    return this.items.map((i) => i.oid);
  }
}

async function paintDownToCommon(graph: CommitGraph, one: string, twos: readonly string[]): Promise<{ candidates: string[]; flags: Map<string, number> }> {
  const flags = new Map<string, number>();
  const queue = new Queue();
  const result: string[] = [];
  flags.set(one, P1);
  queue.push(one, await graph.time(one));
  for (const two of twos) {
    flags.set(two, (flags.get(two) ?? 0) | P2);
    queue.push(two, await graph.time(two));
  }
  const interesting = () => queue.oids().some((oid) => ((flags.get(oid) ?? 0) & STALE) === 0);
  while (queue.size > 0 && interesting()) {
    const oid = queue.pop()!;
    let f = flags.get(oid) ?? 0;
    let paint = f & (P1 | P2 | STALE);
    if ((f & (P1 | P2)) === (P1 | P2)) {
      if ((f & RESULT) === 0) {
        f |= RESULT;
        flags.set(oid, f);
        result.push(oid);
      }
      paint |= STALE;
    }
    for (const parent of await graph.parents(oid)) {
      const pf = flags.get(parent) ?? 0;
      if ((pf & paint) === paint) continue;
      flags.set(parent, pf | paint);
      queue.push(parent, await graph.time(parent));
    }
  }
  return { candidates: result.filter((oid) => ((flags.get(oid) ?? 0) & STALE) === 0), flags };
}

/** Whether `ancestor` is reachable from `descendant` (or is it). */
export async function isAncestor(graph: CommitGraph, ancestor: string, descendant: string): Promise<boolean> {
  if (ancestor === descendant) return true;
  const seen = new Set<string>([descendant]);
  const stack = [descendant];
  while (stack.length > 0) {
    const oid = stack.pop()!;
    for (const parent of await graph.parents(oid)) {
      if (parent === ancestor) return true;
      if (seen.has(parent)) continue;
      seen.add(parent);
      stack.push(parent);
    }
  }
  return false;
}

/** Every best common ancestor of two commits (none for unrelated histories), oldest info first. */
export async function mergeBases(graph: CommitGraph, a: string, b: string): Promise<string[]> {
  if (a === b) return [a];
  const { candidates } = await paintDownToCommon(graph, a, [b]);
  if (candidates.length <= 1) return candidates;
  // remove_redundant: a candidate that reaches another is not a best common ancestor.
  const keep: string[] = [];
  for (const candidate of candidates) {
    let redundant = false;
    for (const other of candidates) {
      if (other !== candidate && (await isAncestor(graph, candidate, other))) {
        redundant = true;
        break;
      }
    }
    if (!redundant) keep.push(candidate);
  }
  return keep;
}
