/**
 * Issue 27: `forge mount --copy`, the mount's contract on a real directory without FUSE. Random
 * changes made in the copy directory (writes, chmod, deletions, whole directories removed,
 * symlinks, renames, ignored output), with forge tool edits in between, end up committed exactly:
 * the committed tree is `git add -A && git write-tree` of a plain directory that went through the
 * same changes; and forge's edits are written back into the directory. The stat cache finds a
 * rewrite that kept the size and the mtime (ctime). The CLI says which mode is in use, and forge
 * turn, forge undo and forge session discard sync the directory.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { CopyMount } from '../../src/mount/node/copy-mount';
import { allowAll } from '../../src/tools';
import { expectFsckClean } from '../helpers/fsck';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { openSession } from '../helpers/mount';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const BASE: Record<string, string> = { '.gitignore': '*.log\nbuild/\n', a: 'hello\n', 'd1/b': 'bee\n', 'd1/d3/c': 'sea\n', 'd2/a': 'again\n' };
const PATHS = ['a', 'b', 'd1/a', 'd1/b', 'd1/d3/c', 'd2/a', 'd2/d4/e', 'x.log', 'build/out', 'd1/y.log'];
const TRACKABLE = ['a', 'b', 'd1/a', 'd1/b', 'd1/d3/c', 'd2/a', 'd2/d4/e'];
const DIRS = ['d1', 'd2', 'd1/d3', 'build'];

type Op =
  | { op: 'write'; path: string; text: string }
  | { op: 'chmod'; path: string; exec: boolean }
  | { op: 'unlink'; path: string }
  | { op: 'rmrf'; path: string }
  | { op: 'symlink'; target: string; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'tool'; path: string; text: string };

const text = fc.string({ maxLength: 12 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('write' as const), path: fc.constantFrom(...PATHS), text }),
  fc.record({ op: fc.constant('chmod' as const), path: fc.constantFrom(...PATHS), exec: fc.boolean() }),
  fc.record({ op: fc.constant('unlink' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ op: fc.constant('rmrf' as const), path: fc.constantFrom(...DIRS) }),
  fc.record({ op: fc.constant('symlink' as const), target: fc.constantFrom('a', '../a', 'nowhere'), path: fc.constantFrom(...PATHS) }),
  fc.record({ op: fc.constant('rename' as const), from: fc.constantFrom(...PATHS), to: fc.constantFrom(...PATHS) }),
  fc.record({ op: fc.constant('tool' as const), path: fc.constantFrom(...TRACKABLE), text }),
);

/** One change to a plain directory (errors, such as a missing parent, are part of the behaviour). */
function apply(root: string, op: Exclude<Op, { op: 'tool' }>): void {
  const at = (p: string) => join(root, p);
  try {
    switch (op.op) {
      case 'write':
        fs.mkdirSync(join(at(op.path), '..'), { recursive: true });
        fs.writeFileSync(at(op.path), op.text);
        return;
      case 'chmod':
        fs.chmodSync(at(op.path), op.exec ? 0o755 : 0o644);
        return;
      case 'unlink':
        fs.unlinkSync(at(op.path));
        return;
      case 'rmrf':
        fs.rmSync(at(op.path), { recursive: true, force: true });
        return;
      case 'symlink':
        fs.mkdirSync(join(at(op.path), '..'), { recursive: true });
        fs.symlinkSync(op.target, at(op.path));
        return;
      case 'rename':
        fs.renameSync(at(op.from), at(op.to));
        return;
    }
  } catch {
    // The same error in both directories.
  }
}

/** Every file and symlink below root but .git/: permissions and bytes, or the target. */
function files(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of fs.readdirSync(join(root, dir)).sort()) {
      if (name === '.git') continue;
      const rel = dir === '' ? name : `${dir}/${name}`;
      const st = fs.lstatSync(join(root, rel));
      if (st.isSymbolicLink()) out[rel] = `link ${fs.readlinkSync(join(root, rel))}`;
      else if (st.isDirectory()) walk(rel);
      else out[rel] = `file ${st.mode & 0o100 ? 'x' : '-'} ${fs.readFileSync(join(root, rel), 'utf8')}`;
    }
  };
  walk('');
  return out;
}

function writeBase(root: string): void {
  for (const [p, content] of Object.entries(BASE)) {
    fs.mkdirSync(join(root, p, '..'), { recursive: true });
    fs.writeFileSync(join(root, p), content);
  }
}

describe('forge mount --copy: the mount\'s contract on a real directory', () => {
  it('random changes in the copy (and tool edits between them) end up committed exactly as git add -A && git write-tree of a plain directory', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 20 }), async (ops) => {
        const repo = makeRepo({ files: BASE });
        const { session } = await openSession(repo, 'copy');
        const dir = makeTempDir('copy');
        const plain = makeTempDir('plain');
        writeBase(plain);
        const { copy } = await CopyMount.mount(session, dir);
        expect(files(dir)).toEqual(files(plain));
        const tools = new SessionToolRunner(session, { approval: allowAll });
        for (const op of ops) {
          if (op.op !== 'tool') {
            apply(dir, op);
            apply(plain, op);
            continue;
          }
          // As forge turn does: the directory's changes first, the tool's edit written back after.
          await copy.sync();
          const result = await tools.call({ tool: 'write_file', args: { path: op.path, content: op.text } });
          await copy.writeBack();
          if (result.ok) apply(plain, { op: 'write', path: op.path, text: op.text });
        }
        await copy.sync();
        const turn = await session.commitTurn({ message: 'copy model' });
        await copy.writeBack();
        execFileSync('git', ['init', '-q'], { cwd: plain });
        execFileSync('git', ['add', '-A'], { cwd: plain });
        const plainTree = execFileSync('git', ['write-tree'], { cwd: plain }).toString().trim();
        const committed = git(repo.gitdir, ['ls-tree', '-r', turn.commit]).stdout.split('\n').filter((line) => line && !line.includes('\t.forge/'));
        const expected = execFileSync('git', ['ls-tree', '-r', plainTree], { cwd: plain }).toString().split('\n').filter(Boolean);
        expect(committed).toEqual(expected);
        // The directory still holds exactly what the plain one does (ignored files included).
        expect(files(dir)).toEqual(files(plain));
        expectFsckClean(repo.gitdir);
        await session.close();
      }),
      { numRuns: 25, seed: Number(process.env.FORGE_COPY_SEED ?? 27), endOnFailure: true },
    );
  }, 300_000);

  it('finds a same-size rewrite whose mtime was set back (the stat cache compares ctime and inode too), and nothing once the cache is renewed', async () => {
    const repo = makeRepo({ files: BASE });
    const { session } = await openSession(repo, 'stat');
    const dir = makeTempDir('copy-stat');
    const { copy } = await CopyMount.mount(session, dir);
    const before = fs.statSync(join(dir, 'a'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    fs.writeFileSync(join(dir, 'a'), 'HELLO\n');
    fs.utimesSync(join(dir, 'a'), before.atime, before.mtime);
    const sync = await copy.sync();
    expect(sync.imported).toEqual({ added: [], modified: ['a'], deleted: [] });
    expect(new TextDecoder().decode(await session.vfs.readFile('a'))).toBe('HELLO\n');
    // A second sync finds nothing: the cache was renewed.
    expect((await copy.sync()).imported).toEqual({ added: [], modified: [], deleted: [] });
    await session.close();
  });

  it('forge mount --copy says so; forge turn commits the directory\'s changes, forge undo and forge session discard write the session back into it', () => {
    const repo = makeRepo({ files: BASE });
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'cli']).status).toBe(0);
    const dir = makeTempDir('copy-cli');
    const mounted = forge(['mount', '--copy', '--repo', repo.dir, 'cli', dir]);
    expect(mounted.status, mounted.stderr).toBe(0);
    expect(mounted.stdout).toContain(`forge mount: session cli copied to ${dir} (copy mode, no FUSE`);
    expect(fs.readFileSync(join(dir, 'd1/b'), 'utf8')).toBe('bee\n');

    fs.writeFileSync(join(dir, 'a'), 'changed in the directory\n');
    fs.writeFileSync(join(dir, 'out.log'), 'ignored\n');
    const turn = forge(['turn', '--repo', repo.dir, '--session', 'cli', '--calls', '-', '--json'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'd2/new.txt', content: 'by a tool\n' } }]) });
    expect(turn.status, turn.stderr).toBe(0);
    const commit = (JSON.parse(turn.stdout) as { commit: string }).commit;
    expect(git(repo.gitdir, ['show', `${commit}:a`]).stdout).toBe('changed in the directory\n');
    expect(git(repo.gitdir, ['ls-tree', '-r', '--name-only', commit]).stdout).not.toContain('out.log');
    // The tool's edit is in the directory.
    expect(fs.readFileSync(join(dir, 'd2/new.txt'), 'utf8')).toBe('by a tool\n');

    // Undo reverts the session's last edit (the tool's write) and the directory follows.
    const undo = forge(['undo', '--repo', repo.dir, '--session', 'cli']);
    expect(undo.status, undo.stderr).toBe(0);
    expect(fs.existsSync(join(dir, 'd2/new.txt'))).toBe(false);

    // A change in the directory, then discard: the directory holds the session's view again.
    fs.writeFileSync(join(dir, 'd1/b'), 'to be discarded\n');
    const again = forge(['mount', '--copy', '--repo', repo.dir, 'cli', dir]);
    expect(again.stdout).toContain('synced (copy mode): 1 change(s) from the directory now pending');
    const discard = forge(['session', 'discard', '--repo', repo.dir, 'cli']);
    expect(discard.status, discard.stderr).toBe(0);
    expect(fs.readFileSync(join(dir, 'd1/b'), 'utf8')).toBe('bee\n');
    expect(fs.readFileSync(join(dir, 'out.log'), 'utf8')).toBe('ignored\n');

    // Forgotten: the directory stays, forge no longer syncs it.
    const forget = forge(['mount', '--unmount', '--copy', '--repo', repo.dir, 'cli']);
    expect(forget.status, forget.stderr).toBe(0);
    expect(forget.stdout).toContain(`forgot ${dir}`);
    fs.writeFileSync(join(dir, 'a'), 'not synced\n');
    const last = forge(['turn', '--repo', repo.dir, '--session', 'cli', '--calls', '-', '--json'], { input: '[]' });
    expect(last.status, last.stderr).toBe(0);
    expect(git(repo.gitdir, ['show', `${(JSON.parse(last.stdout) as { commit: string }).commit}:a`]).stdout).toBe('changed in the directory\n');
    expectFsckClean(repo.gitdir);
  });
});
