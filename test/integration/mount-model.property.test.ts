/**
 * Issue 27, done-when 1: random sequences of POSIX operations (create, write at offsets,
 * truncate, rename over files and directories, unlink, mkdir, rmdir, chmod, symlink,
 * open-unlink-read) applied to a mount and to a plain temporary directory give the same results
 * (errors included), the same listing, bytes and modes; and the committed tree equals
 * `git add -A && git write-tree` of the plain directory.
 */
import { execFileSync } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { describeMount, mountedRepo } from '../helpers/mount';
import { makeTempDir } from '../helpers/temp';

const BASE: Record<string, string> = { a: 'hello\n', 'd1/b': 'bee\n', 'd1/d3/c': 'sea\n', 'd2/a': 'again\n' };

const PATHS = ['a', 'b', 'd1', 'd2', 'd1/a', 'd1/b', 'd1/d3', 'd1/d3/c', 'd2/a', 'd2/d4', 'd2/d4/e'];
const path = fc.constantFrom(...PATHS);
const content = fc.uint8Array({ minLength: 0, maxLength: 40 });

type Op =
  | { op: 'write'; path: string; data: Uint8Array; offset: number; create: boolean }
  | { op: 'truncate'; path: string; size: number }
  | { op: 'rename'; from: string; to: string }
  | { op: 'unlink'; path: string }
  | { op: 'mkdir'; path: string }
  | { op: 'rmdir'; path: string }
  | { op: 'chmod'; path: string; mode: number }
  | { op: 'symlink'; target: string; path: string }
  | { op: 'openUnlinkRead'; path: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('write' as const), path, data: content, offset: fc.nat(60), create: fc.boolean() }),
  fc.record({ op: fc.constant('truncate' as const), path, size: fc.nat(50) }),
  fc.record({ op: fc.constant('rename' as const), from: path, to: path }),
  fc.record({ op: fc.constant('unlink' as const), path }),
  fc.record({ op: fc.constant('mkdir' as const), path }),
  fc.record({ op: fc.constant('rmdir' as const), path }),
  fc.record({ op: fc.constant('chmod' as const), path, mode: fc.constantFrom(0o755, 0o644) }),
  fc.record({ op: fc.constant('symlink' as const), target: fc.constantFrom('a', 'd1/b', 'missing'), path }),
  fc.record({ op: fc.constant('openUnlinkRead' as const), path }),
);

/** Applies one operation under root; returns what a program would see: bytes read or the error code. */
async function apply(root: string, op: Op): Promise<string> {
  const at = (p: string) => join(root, p);
  try {
    switch (op.op) {
      case 'write': {
        const handle = await fsp.open(at(op.path), op.create ? 'a+' : 'r+');
        try {
          await handle.write(op.data, 0, op.data.length, op.offset);
        } finally {
          await handle.close();
        }
        return 'ok';
      }
      case 'truncate':
        await fsp.truncate(at(op.path), op.size);
        return 'ok';
      case 'rename':
        await fsp.rename(at(op.from), at(op.to));
        return 'ok';
      case 'unlink':
        await fsp.unlink(at(op.path));
        return 'ok';
      case 'mkdir':
        await fsp.mkdir(at(op.path));
        return 'ok';
      case 'rmdir':
        await fsp.rmdir(at(op.path));
        return 'ok';
      case 'chmod':
        await fsp.chmod(at(op.path), op.mode);
        return 'ok';
      case 'symlink':
        await fsp.symlink(op.target, at(op.path));
        return 'ok';
      case 'openUnlinkRead': {
        const handle = await fsp.open(at(op.path), 'r');
        try {
          await fsp.unlink(at(op.path));
          const { buffer, bytesRead } = await handle.read(Buffer.alloc(100), 0, 100, 0);
          return `read ${buffer.subarray(0, bytesRead).toString('hex')}`;
        } finally {
          await handle.close();
        }
      }
    }
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** Every entry below root: type, permissions of files, symlink targets, bytes. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(dir: string): Promise<void> {
    for (const name of (await fsp.readdir(join(root, dir))).sort()) {
      const rel = dir === '' ? name : `${dir}/${name}`;
      const st = await fsp.lstat(join(root, rel));
      if (st.isSymbolicLink()) out[rel] = `link ${await fsp.readlink(join(root, rel))}`;
      else if (st.isDirectory()) {
        out[rel] = 'dir';
        await walk(rel);
      } else out[rel] = `file ${(st.mode & 0o777).toString(8)} ${(await fsp.readFile(join(root, rel))).toString('hex')}`;
    }
  }
  await walk('');
  return out;
}

function lsTree(gitdir: string, tree: string): string {
  return git(gitdir, ['ls-tree', '-r', tree]).stdout;
}

describeMount('mount model: the mount behaves as a plain directory', () => {
  it('random POSIX operation sequences give the same results, listing, bytes and modes, and the committed tree is git add -A && git write-tree', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const m = await mountedRepo(BASE);
        const plain = makeTempDir('plain');
        for (const [p, text] of Object.entries(BASE)) {
          await fsp.mkdir(join(plain, p, '..'), { recursive: true });
          await fsp.writeFile(join(plain, p), text);
        }
        for (const op of ops) {
          const expected = await apply(plain, op);
          const actual = await apply(m.dir, op);
          expect(actual, JSON.stringify(op)).toBe(expected);
        }
        expect(await snapshot(m.dir)).toEqual(await snapshot(plain));
        const turn = await m.session.commitTurn({ message: 'mount model' });
        execFileSync('git', ['init', '-q'], { cwd: plain });
        execFileSync('git', ['add', '-A'], { cwd: plain });
        const plainTree = execFileSync('git', ['write-tree'], { cwd: plain }).toString().trim();
        const committed = lsTree(m.repo.gitdir, turn.commit).split('\n').filter((line) => !line.includes('\t.forge/')).join('\n');
        const plainObjects = execFileSync('git', ['ls-tree', '-r', plainTree], { cwd: plain }).toString();
        expect(committed.trim()).toBe(plainObjects.trim());
        expectFsckClean(m.repo.gitdir);
        await m.mount.unmount();
      }),
      { numRuns: 12, seed: Number(process.env.FORGE_MOUNT_SEED ?? 27), endOnFailure: true },
    );
  }, 300_000);
});
