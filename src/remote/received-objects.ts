/**
 * What a fetch does with a received pack between the wire and the object store, as git does
 * with `transfer.fsckObjects`: the pack is unpacked into a quarantine (memory, pack-unpack.ts),
 * every object in it is judged by git's fsck rules (object-fsck.ts: tree entry names in every
 * `.git` spelling, modes, order, commit and tag headers, `.gitmodules`), every tip must reach a
 * complete history (connectivity.ts), and only then are the objects stored — children before
 * the objects that name them, so a process killed while storing leaves no stored commit or tree
 * that names an object not stored (and a retry's connectivity check finds any that an older
 * version left). A refusal stores nothing and moves no ref.
 */
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { fsckGitmodules, fsckObject, type FsckProblem, type ObjectLink } from '../git/object-fsck';
import { findUnconnected } from './connectivity';
import { DEFAULT_UNPACK_LIMITS, unpackToQuarantine, type Quarantine, type StreamInflater, type UnpackLimits } from './pack-unpack';

function refused(remote: string, problem: FsckProblem): ForgeError {
  return new ForgeError('REMOTE_OBJECT_INVALID', `${remote} sent object ${problem.oid}, which git's fsck refuses (${problem.rule}): ${problem.detail}. Nothing was stored and no ref moved.`, {
    data: { remote, oid: problem.oid, rule: problem.rule },
    hint: 'The remote holds an object git itself would refuse (possibly planted to write into .git or outside the work tree); do not fetch it. Ask the remote\'s owner to remove it.',
  });
}

/** Judges every quarantined object by git's fsck rules; throws REMOTE_OBJECT_INVALID naming the object and the rule. */
export async function fsckQuarantine(repo: Repository, quarantine: Quarantine, remote: string): Promise<Map<string, ObjectLink[]>> {
  const links = new Map<string, ObjectLink[]>();
  const gitmodules = new Set<string>();
  for (const [oid, { type, content }] of quarantine) {
    const result = fsckObject(type, content, oid);
    if (result.problem !== null) throw refused(remote, result.problem);
    links.set(oid, result.links);
    for (const blob of result.gitmodules) gitmodules.add(blob);
  }
  for (const oid of gitmodules) {
    const held = quarantine.get(oid) ?? (await repo.objects.read(oid).catch(() => null));
    // A missing one is reported by the connectivity check.
    if (held === null) continue;
    if (held.type !== 'blob') throw refused(remote, { oid, rule: 'gitmodulesBlob', detail: 'a .gitmodules entry names a non-blob' });
    const problem = fsckGitmodules(held.content, oid);
    if (problem !== null) throw refused(remote, problem);
  }
  return links;
}

/** Throws REMOTE_OBJECTS_MISSING unless every tip reaches a complete history. */
export async function checkConnected(repo: Repository, quarantine: Quarantine, tips: readonly string[], trusted: readonly string[], remote: string): Promise<void> {
  const problem = await findUnconnected(repo, quarantine, tips, trusted);
  if (problem === null) return;
  const what = problem.reason === 'missing' ? `the ${problem.type} ${problem.oid} is neither in the pack nor in this repository` : `${problem.oid} is not a ${problem.type}`;
  throw new ForgeError('REMOTE_OBJECTS_MISSING', `The history ${remote} sent is not complete: ${what} (reached from ${problem.via}). Nothing was stored and no ref moved.`, {
    data: { remote, oid: problem.oid, type: problem.type, via: problem.via, reason: problem.reason, rule: 'connectivity' },
    hint: 'Retry the fetch; if it fails again, the remote repository is damaged or hostile.',
  });
}

/** Stores the quarantine, each object after every quarantined object it names (an iterative post-order walk). */
export async function storeQuarantine(repo: Repository, quarantine: Quarantine, links: ReadonlyMap<string, readonly ObjectLink[]>): Promise<string[]> {
  const done = new Set<string>();
  const stored: string[] = [];
  for (const root of quarantine.keys()) {
    if (done.has(root)) continue;
    const stack: Array<{ oid: string; next: number }> = [{ oid: root, next: 0 }];
    const onStack = new Set<string>([root]);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const children = links.get(top.oid) ?? [];
      let descended = false;
      while (top.next < children.length) {
        const child = children[top.next++]!.oid;
        if (done.has(child) || onStack.has(child) || !quarantine.has(child)) continue;
        stack.push({ oid: child, next: 0 });
        onStack.add(child);
        descended = true;
        break;
      }
      if (descended) continue;
      stack.pop();
      onStack.delete(top.oid);
      const object = quarantine.get(top.oid)!;
      await repo.objects.write(object.type, object.content);
      done.add(top.oid);
      stored.push(top.oid);
    }
  }
  return stored;
}

export interface ReceiveOptions {
  inflate: StreamInflater;
  /** Who sent it, for messages. */
  remote: string;
  limits?: UnpackLimits;
  /** The tips the pack must complete (the refs about to move), and the local tips trusted whole. */
  tips?: readonly string[];
  trusted?: readonly string[];
}

/** A received pack, checked (fsck, connectivity) in quarantine and then stored. Returns the oids it held, in the order stored. */
export async function receivePack(repo: Repository, pack: Uint8Array, options: ReceiveOptions): Promise<string[]> {
  const quarantine = await unpackToQuarantine(repo, pack, options.inflate, options.remote, options.limits);
  const links = await fsckQuarantine(repo, quarantine, options.remote);
  if (options.tips !== undefined && options.tips.length > 0) await checkConnected(repo, quarantine, options.tips, options.trusted ?? [], options.remote);
  return storeQuarantine(repo, quarantine, links);
}

/** The limits of forge.maxObjectSize and forge.maxPackSize (git size syntax, e.g. 100m), else the defaults. */
export async function unpackLimits(repo: Repository): Promise<UnpackLimits> {
  return {
    maxObjectBytes: (await repo.config.getSize('forge.maxObjectSize')) ?? DEFAULT_UNPACK_LIMITS.maxObjectBytes,
    maxPackBytes: (await repo.config.getSize('forge.maxPackSize')) ?? DEFAULT_UNPACK_LIMITS.maxPackBytes,
  };
}

/** receivePack without tips to complete: every object checked by fsck, then stored. */
export async function unpackInto(repo: Repository, pack: Uint8Array, inflate: StreamInflater, remote: string): Promise<{ oids: string[] }> {
  return { oids: await receivePack(repo, pack, { inflate, remote }) };
}
