/**
 * Which commits one side reaches and the other does not (git's `rev-list --left-right A...B`):
 * both sides are painted down the parents, newest first by committer time; a commit reached
 * from both is common and so is everything below it; the walk stops when only common commits
 * are left to visit. Clock skew can only make it count a common commit as one side's (git has
 * the same limit): for a push that means sending an object twice, never missing one.
 */
import type { Repository } from '../git';

const LEFT = 1;
const RIGHT = 2;
const BOTH = LEFT | RIGHT;

export interface CommitInfo {
  parents: readonly string[];
  time: number;
}

export type CommitLoader = (oid: string) => Promise<CommitInfo>;

export function commitLoader(repo: Repository): CommitLoader {
  const cache = new Map<string, CommitInfo>();
  return async (oid) => {
    let info = cache.get(oid);
    if (info === undefined) {
      const commit = await repo.readCommit(oid);
      info = { parents: commit.parents, time: commit.committer.timestamp };
      cache.set(oid, info);
    }
    return info;
  };
}

export interface SidedCommits {
  /** Reached from the left tips only, newest first. */
  left: string[];
  /** Reached from the right tips only, newest first. */
  right: string[];
}

/**
 * `leftOnly`: only `left` is wanted, so the walk stops as soon as no left-only commit is left to
 * visit, instead of painting the right side down to where it meets the left (a connectivity
 * check would otherwise walk the whole history of every local branch). `right` is then partial.
 */
export async function leftRight(load: CommitLoader, leftTips: readonly string[], rightTips: readonly string[], options: { leftOnly?: boolean } = {}): Promise<SidedCommits> {
  const flags = new Map<string, number>();
  const order: string[] = [];
  const queue: Array<{ oid: string; time: number }> = [];
  const enqueue = (oid: string, time: number) => {
    let lo = 0;
    let hi = queue.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (queue[mid]!.time >= time) lo = mid + 1;
      else hi = mid;
    }
    queue.splice(lo, 0, { oid, time });
  };
  const paint = async (oid: string, flag: number) => {
    const before = flags.get(oid) ?? 0;
    if ((before | flag) === before) return;
    if (before === 0) order.push(oid);
    flags.set(oid, before | flag);
    enqueue(oid, (await load(oid)).time);
  };
  for (const tip of leftTips) await paint(tip, LEFT);
  for (const tip of rightTips) await paint(tip, RIGHT);
  const pending = options.leftOnly ? (q: { oid: string }) => flags.get(q.oid) === LEFT : (q: { oid: string }) => flags.get(q.oid) !== BOTH;
  while (queue.length > 0 && queue.some(pending)) {
    const { oid } = queue.shift()!;
    const flag = flags.get(oid)!;
    for (const parent of (await load(oid)).parents) await paint(parent, flag);
  }
  // A commit that became common after its one-sided flag went down its parents (a tie in time:
  // commits of the same second) leaves that flag below it when the walk stops. Carry "common"
  // down, also through commits never visited (a one-sided commit may lie below one), as far as
  // a one-sided commit can: not below the oldest of them (parents are no newer than children).
  let oldest = Infinity;
  for (const [oid, flag] of flags) if (flag !== BOTH) oldest = Math.min(oldest, (await load(oid)).time);
  const common = queue.map((q) => q.oid).filter((oid) => flags.get(oid) === BOTH);
  while (common.length > 0 && oldest !== Infinity) {
    for (const parent of (await load(common.pop()!)).parents) {
      if (flags.get(parent) === BOTH || (await load(parent)).time < oldest) continue;
      flags.set(parent, BOTH);
      common.push(parent);
    }
  }
  return { left: order.filter((o) => flags.get(o) === LEFT), right: order.filter((o) => flags.get(o) === RIGHT) };
}

export interface Divergence {
  ahead: number;
  behind: number;
  state: 'same' | 'ahead' | 'behind' | 'diverged';
}

/** Where `local` stands against `remote`: commits only local has (ahead) and only remote has (behind). */
export async function divergence(load: CommitLoader, local: string, remote: string): Promise<Divergence> {
  if (local === remote) return { ahead: 0, behind: 0, state: 'same' };
  const { left, right } = await leftRight(load, [local], [remote]);
  const state = left.length > 0 && right.length > 0 ? 'diverged' : left.length > 0 ? 'ahead' : right.length > 0 ? 'behind' : 'same';
  return { ahead: left.length, behind: right.length, state };
}

/** Whether `ancestor` is reachable from `descendant` (both present locally). */
export async function isAncestorOf(load: CommitLoader, ancestor: string, descendant: string): Promise<boolean> {
  if (ancestor === descendant) return true;
  return (await leftRight(load, [ancestor], [descendant])).left.length === 0;
}
