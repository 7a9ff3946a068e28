/**
 * Node adapter: keeps a checked-out branch's index and working tree in step when forge moves
 * the branch (merge into the current branch, rebase of a checked-out session). The only place
 * the engine writes a working tree.
 *
 * begin: takes `index.lock` (O_EXCL, as git does), reads the index and refuses unless it is
 * exactly the HEAD tree (no staged change, no conflict) and every tracked file on disk matches
 * it (stat data, else content hash; the exec bit unless core.fileMode is false). apply: writes
 * the files that differ between the old and the new tree (deletions first; refusing untracked or
 * ignored files in the way before touching anything) and the new index into the lock file.
 * commit renames the lock into place; rollback restores the old files and drops the lock.
 * Not supported (refused): submodule changes, skip-worktree / sparse and split indexes.
 * Content filters (core.autocrlf, .gitattributes text/eol/filter) are not applied: a file git
 * would convert is checked and written as the blob's bytes.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
// node:fs's `promises` getter loads fs/promises (~5 ms of a fresh process) when first used: a
// dry-run merge, which never touches a working tree, does not load it.
import { promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { ForgeError, toForgeError } from '../../errors';
import { diffTrees, type Repository, type TreeChangeEntry } from '../../git';
import { assertCheckoutSafe, foldsCase } from '../../git/checkout-paths';
import { parseIndex, serializeIndex, type IndexEntry } from '../git-index';
import type { Checkout, WorktreeSync, WorktreeTransaction } from '../worktree';

const sha1Hex = (data: Uint8Array) => createHash('sha1').update(data).digest('hex');

function blobOid(content: Uint8Array): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

async function lstatOrNull(path: string): Promise<fs.BigIntStats | null> {
  try {
    return await fsp.lstat(path, { bigint: true });
  } catch (error) {
    if (code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return null;
    throw toForgeError(error);
  }
}

const NS = 1_000_000_000n;
const U32 = 0xffffffffn;

function statFields(st: fs.BigIntStats): Pick<IndexEntry, 'ctimeSeconds' | 'ctimeNanoseconds' | 'mtimeSeconds' | 'mtimeNanoseconds' | 'dev' | 'ino' | 'uid' | 'gid' | 'size'> {
  return {
    ctimeSeconds: Number((st.ctimeNs / NS) & U32),
    ctimeNanoseconds: Number(st.ctimeNs % NS),
    mtimeSeconds: Number((st.mtimeNs / NS) & U32),
    mtimeNanoseconds: Number(st.mtimeNs % NS),
    dev: Number(st.dev & U32),
    ino: Number(st.ino & U32),
    uid: Number(st.uid & U32),
    gid: Number(st.gid & U32),
    size: Number(st.size & U32),
  };
}

const MODES: Record<string, number> = { '100644': 0o100644, '100755': 0o100755, '120000': 0o120000, '160000': 0o160000 };

async function flatten(repo: Repository, tree: string, prefix: string, out: Map<string, { mode: string; oid: string }>): Promise<void> {
  for (const entry of await repo.readTree(tree)) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.mode === '040000') await flatten(repo, entry.oid, path, out);
    else out.set(path, { mode: entry.mode, oid: entry.oid });
  }
}

class NodeTransaction implements WorktreeTransaction {
  private applied: TreeChangeEntry[] | null = null;
  private done = false;

  constructor(
    private readonly repo: Repository,
    private readonly checkout: Checkout,
    private readonly headTree: string,
    private readonly entries: IndexEntry[],
    private readonly lockPath: string,
    private readonly indexPath: string,
  ) {}

  private abs(path: string): string {
    return join(this.checkout.workdir, path);
  }

  async apply(newTree: string): Promise<void> {
    const changes = await diffTrees(this.repo, this.headTree, newTree);
    for (const c of changes) {
      if (c.oldMode === '160000' || c.newMode === '160000') {
        throw new ForgeError('WORKTREE_UNSUPPORTED', `The update changes the submodule ${c.path}; forge does not update submodules in a working tree.`, { data: { path: c.path } });
      }
    }
    await this.checkPaths(newTree);
    await this.checkInTheWay(changes);
    this.applied = changes;
    const written = await this.write(changes, 'new');
    const byPath = new Map(this.entries.map((e) => [e.path, e]));
    for (const c of changes) {
      if (c.kind === 'deleted') byPath.delete(c.path);
      else {
        const st = written.get(c.path)!;
        byPath.set(c.path, { ...statFields(st), mode: MODES[c.newMode!]!, oid: c.newOid!, stage: 0, assumeValid: false, skipWorktree: false, intentToAdd: false, path: c.path });
      }
    }
    await fsp.writeFile(this.lockPath, serializeIndex([...byPath.values()], sha1Hex));
  }

  async commit(): Promise<void> {
    if (this.done) return;
    await fsp.rename(this.lockPath, this.indexPath);
    this.done = true;
  }

  async rollback(): Promise<void> {
    if (this.done) return;
    try {
      if (this.applied !== null) await this.write(this.applied, 'old');
    } finally {
      await fsp.unlink(this.lockPath).catch(() => undefined);
      this.done = true;
    }
  }

  /**
   * Every path of the new tree, not only the changed ones, since a new path can collide by case
   * with one already there, and a commit made with plain git is no more trusted than a fetched one.
   */
  private async checkPaths(newTree: string): Promise<void> {
    const paths = new Map<string, { mode: string; oid: string }>();
    await flatten(this.repo, newTree, '', paths);
    const caseInsensitive = (await this.repo.config.getBool('core.ignoreCase')) === true || (await foldsCase(this.repo.fs, this.checkout.gitdir));
    assertCheckoutSafe([...paths].map(([path, { mode }]) => ({ path, mode })), caseInsensitive, this.checkout.workdir);
  }

  /** Untracked (or ignored) files where new files go: refuse before changing anything. */
  private async checkInTheWay(changes: TreeChangeEntry[]): Promise<void> {
    const leaving = new Set(changes.filter((c) => c.kind === 'deleted').map((c) => c.path));
    const blocked: string[] = [];
    for (const c of changes) {
      if (c.kind !== 'added') continue;
      const parts = c.path.split('/');
      for (let i = 1; i < parts.length; i++) {
        const ancestor = parts.slice(0, i).join('/');
        const st = await lstatOrNull(this.abs(ancestor));
        if (st === null) break;
        if (!st.isDirectory() && !leaving.has(ancestor)) blocked.push(ancestor);
        if (!st.isDirectory()) break;
      }
      const st = await lstatOrNull(this.abs(c.path));
      if (st === null) continue;
      if (!st.isDirectory()) blocked.push(c.path);
      else for (const inside of await this.filesUnder(c.path)) if (!leaving.has(inside)) blocked.push(inside);
    }
    if (blocked.length > 0) {
      const unique = [...new Set(blocked)].sort();
      throw new ForgeError('WORKTREE_IN_THE_WAY', `Untracked files in ${this.checkout.workdir} would be overwritten: ${unique.slice(0, 10).join(', ')}${unique.length > 10 ? ` and ${unique.length - 10} more` : ''}. Nothing was changed.`, {
        data: { paths: unique.slice(0, 100), count: unique.length },
        hint: 'Move or remove those files, then run the command again.',
      });
    }
  }

  private async filesUnder(dir: string): Promise<string[]> {
    const out: string[] = [];
    for (const name of await fsp.readdir(this.abs(dir))) {
      const path = `${dir}/${name}`;
      const st = await fsp.lstat(this.abs(path));
      if (st.isDirectory()) out.push(...(await this.filesUnder(path)));
      else out.push(path);
    }
    if (out.length === 0) out.push(`${dir}/`);
    return out;
  }

  /** Makes the working files match one side of the changes; returns the stat of each file written. */
  private async write(changes: TreeChangeEntry[], side: 'old' | 'new'): Promise<Map<string, fs.BigIntStats>> {
    const target = (c: TreeChangeEntry) => (side === 'new' ? (c.newOid ? { oid: c.newOid, mode: c.newMode! } : null) : c.oldOid ? { oid: c.oldOid, mode: c.oldMode! } : null);
    const removed: string[] = [];
    for (const c of changes) {
      if (target(c) !== null) continue;
      await fsp.unlink(this.abs(c.path)).catch((error: unknown) => {
        if (code(error) !== 'ENOENT' && code(error) !== 'ENOTDIR') throw toForgeError(error);
      });
      removed.push(c.path);
    }
    // Directories left empty go too (deepest first), as git does.
    const dirs = new Set<string>();
    for (const path of removed) for (let d = dirname(path); d !== '.' && d !== ''; d = dirname(d)) dirs.add(d);
    for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await fsp.rmdir(this.abs(dir)).catch(() => undefined);
    const stats = new Map<string, fs.BigIntStats>();
    for (const c of changes) {
      const want = target(c);
      if (want === null) continue;
      const abs = this.abs(c.path);
      await fsp.mkdir(dirname(abs), { recursive: true });
      const bytes = await this.repo.readBlob(want.oid);
      const existing = await lstatOrNull(abs);
      if (existing?.isDirectory()) await fsp.rm(abs, { recursive: true });
      if (want.mode === '120000') {
        if (existing && !existing.isDirectory()) await fsp.unlink(abs);
        await fsp.symlink(new TextDecoder().decode(bytes), abs);
      } else {
        const tmp = `${abs}.forge-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
        await fsp.writeFile(tmp, bytes, { mode: want.mode === '100755' ? 0o777 : 0o666 });
        await fsp.rename(tmp, abs);
      }
      stats.set(c.path, await fsp.lstat(abs, { bigint: true }));
    }
    return stats;
  }
}

async function checkClean(repo: Repository, checkout: Checkout, headTree: string, entries: IndexEntry[], indexMtimeNs: bigint): Promise<void> {
  const head = new Map<string, { mode: string; oid: string }>();
  await flatten(repo, headTree, '', head);
  const fileMode = (await repo.config.getBool('core.fileMode')) ?? true;
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const e of entries) {
    if (e.skipWorktree || e.intentToAdd) {
      throw new ForgeError('WORKTREE_UNSUPPORTED', `Index entry ${e.path} is ${e.skipWorktree ? 'skip-worktree (sparse checkout)' : 'intent-to-add'}; forge does not update such a working tree.`, { data: { path: e.path } });
    }
    seen.add(e.path);
    const want = head.get(e.path);
    if (e.stage !== 0) {
      problems.push(`${e.path} (unmerged)`);
      continue;
    }
    if (want === undefined || MODES[want.mode] !== e.mode || want.oid !== e.oid) {
      problems.push(`${e.path} (staged)`);
      continue;
    }
    if (e.mode === 0o160000) continue;
    const st = await lstatOrNull(join(checkout.workdir, e.path));
    if (st === null) {
      problems.push(`${e.path} (deleted)`);
      continue;
    }
    const isLink = e.mode === 0o120000;
    if (isLink ? !st.isSymbolicLink() : !st.isFile()) {
      problems.push(`${e.path} (type changed)`);
      continue;
    }
    if (!isLink && fileMode && (((st.mode & 0o100n) !== 0n) !== (e.mode === 0o100755))) {
      problems.push(`${e.path} (mode changed)`);
      continue;
    }
    const now = statFields(st);
    const racy = st.mtimeNs >= indexMtimeNs;
    const statMatches =
      now.size === e.size && now.mtimeSeconds === e.mtimeSeconds && now.mtimeNanoseconds === e.mtimeNanoseconds && now.ctimeSeconds === e.ctimeSeconds && now.ctimeNanoseconds === e.ctimeNanoseconds && now.ino === e.ino;
    if (statMatches && !racy) continue;
    // Without content filters a new size is new content (git smudges racy entries to size 0).
    if (!isLink && now.size !== e.size && e.size !== 0) {
      problems.push(`${e.path} (modified)`);
      continue;
    }
    const content = isLink ? new TextEncoder().encode(await fsp.readlink(join(checkout.workdir, e.path))) : await fsp.readFile(join(checkout.workdir, e.path));
    if (blobOid(content) !== e.oid) problems.push(`${e.path} (modified)`);
  }
  for (const path of head.keys()) if (!seen.has(path)) problems.push(`${path} (staged deletion)`);
  if (problems.length > 0) {
    throw new ForgeError('WORKTREE_DIRTY', `The branch is checked out in ${checkout.workdir} and it has changes: ${problems.slice(0, 10).join(', ')}${problems.length > 10 ? ` and ${problems.length - 10} more` : ''}. Nothing was changed.`, {
      data: { workdir: checkout.workdir, paths: problems.slice(0, 100), count: problems.length },
      hint: 'Commit or stash those changes (or switch the working tree to another branch), then run the command again.',
    });
  }
}

export function nodeWorktreeSync(): WorktreeSync {
  return {
    async begin(repo, checkout, headTree) {
      const indexPath = join(checkout.gitdir, 'index');
      const lockPath = `${indexPath}.lock`;
      let handle: fsp.FileHandle;
      try {
        handle = await fsp.open(lockPath, 'wx');
      } catch (error) {
        if (code(error) === 'EEXIST') {
          throw new ForgeError('INDEX_LOCKED', `${lockPath} exists: another git or forge process is using the index.`, {
            data: { lock: lockPath },
            hint: 'Retry when it is done; remove the lock file only if no git process is running.',
          });
        }
        throw toForgeError(error);
      }
      await handle.close();
      try {
        let entries: IndexEntry[] = [];
        let mtimeNs = 0n;
        try {
          const bytes = await fsp.readFile(indexPath);
          mtimeNs = (await fsp.stat(indexPath, { bigint: true })).mtimeNs;
          const index = parseIndex(bytes, sha1Hex);
          const required = index.extensions.filter((sig) => sig[0]! >= 'a' && sig[0]! <= 'z');
          if (required.length > 0) {
            throw new ForgeError('WORKTREE_UNSUPPORTED', `The index uses the extension(s) ${required.join(', ')} (split or sparse index); forge cannot update it.`, { data: { extensions: required } });
          }
          entries = index.entries;
        } catch (error) {
          if (code(error) !== 'ENOENT') throw error;
        }
        await checkClean(repo, checkout, headTree, entries, mtimeNs);
        return new NodeTransaction(repo, checkout, headTree, entries, lockPath, indexPath);
      } catch (error) {
        await fsp.unlink(lockPath).catch(() => undefined);
        throw error;
      }
    },
  };
}
