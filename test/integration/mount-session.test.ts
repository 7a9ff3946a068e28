/**
 * Issue 27: the mount and Forge's tools see each other's changes at once (kernel caches
 * included), a close is an edit Undo reverts, a turn commit commits what the mount changed,
 * the mount holds the session's lease, and ignored paths live in the scratch directory, never
 * committed. Real programs run in it: an editor's atomic save, tar x, a pipeline writing
 * ignored build output.
 */
import { existsSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { allowAll, type ToolResult } from '../../src/tools';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { forge } from '../helpers/forge-cli';
import { describeMount, mountedRepo, sh } from '../helpers/mount';

const FILES = {
  '.gitignore': 'node_modules/\ndist/\n*.log\n',
  'src/a.txt': 'alpha\nbeta\n',
  'src/b.txt': 'one\n',
};

/** Asynchronous: a sync call into the mount would block the loop that serves it. */
const exists = (path: string) => fsp.lstat(path).then(() => true, () => false);

function ok(result: ToolResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`${result.tool} failed: ${result.error.code}: ${result.error.message}`);
  return result.output as Record<string, unknown>;
}

describeMount('forge mount and the session', () => {
  it('a forge tool edit is read through the mount at once, and a mount write is seen by the next read_file', async () => {
    const m = await mountedRepo(FILES);
    const tools = new SessionToolRunner(m.session, { approval: allowAll });
    // Read once through the mount, so the kernel has the file's pages and attributes.
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('alpha\nbeta\n');
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/a.txt' } }));
    ok(await tools.call({ tool: 'Edit', args: { path: 'src/a.txt', old_snippet: 'beta', new_snippet: 'BETA, longer now' } }));
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('alpha\nBETA, longer now\n');
    ok(await tools.call({ tool: 'write_file', args: { path: 'src/c.txt', content: 'made by a tool\n' } }));
    expect((await fsp.readdir(m.at('src'))).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);

    await fsp.writeFile(m.at('src/b.txt'), 'two\n');
    const read = ok(await tools.call({ tool: 'read_file', args: { path: 'src/b.txt' } }));
    expect(JSON.stringify(read)).toContain('two');
    expect(JSON.stringify(read)).not.toContain('one');
  });

  it('a file closed in the mount is an edit Undo reverts, and the turn commit commits what the mount changed', async () => {
    const m = await mountedRepo(FILES);
    const tools = new SessionToolRunner(m.session, { approval: allowAll });
    await fsp.symlink('a.txt', m.at('src/link'));
    await fsp.writeFile(m.at('src/a.txt'), 'rewritten\n');
    await fsp.writeFile(m.at('src/new.txt'), 'new\n');
    await fsp.chmod(m.at('src/new.txt'), 0o755);
    await fsp.writeFile(m.at('src/new.txt'), 'newer\n');
    // The last edit was the last close: Undo reverts it and nothing else.
    ok(await tools.call({ tool: 'Undo', args: {} }));
    expect(await fsp.readFile(m.at('src/new.txt'), 'utf8')).toBe('new\n');
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('rewritten\n');
    const turn = await m.session.commitTurn({ message: 'edits through the mount' });
    const tree = git(m.repo.gitdir, ['ls-tree', '-r', turn.commit]).stdout;
    expect(tree).toMatch(/100755 blob \w+\tsrc\/new\.txt/);
    expect(tree).toMatch(/120000 blob \w+\tsrc\/link/);
    expect(git(m.repo.gitdir, ['show', `${turn.commit}:src/a.txt`]).stdout).toBe('rewritten\n');
    // The mount goes on over the new head.
    expect(await fsp.readFile(m.at('src/new.txt'), 'utf8')).toBe('new\n');
    expectFsckClean(m.repo.gitdir);
  });

  it('the mount holds the session: another process writing it gets SESSION_BUSY', async () => {
    const m = await mountedRepo(FILES);
    const run = forge(['turn', '--repo', m.repo.dir, '--session', m.session.id, '--calls', '-'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'x.txt', content: 'x' } }]) });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('SESSION_BUSY');
  });

  it('.git in any spelling and .forge/ are neither visible nor creatable; hard links and FIFOs are EPERM', async () => {
    const m = await mountedRepo(FILES);
    for (const name of ['.git', '.GIT', '.git.', 'git~1', '.forge']) {
      await expect(fsp.mkdir(m.at(name)), name).rejects.toMatchObject({ code: 'EPERM' });
      await expect(fsp.writeFile(m.at(name), 'x'), name).rejects.toMatchObject({ code: 'EPERM' });
    }
    await expect(fsp.writeFile(m.at('src/.git'), 'x')).rejects.toMatchObject({ code: 'EPERM' });
    await expect(fsp.link(m.at('src/a.txt'), m.at('src/hard'))).rejects.toMatchObject({ code: 'EPERM' });
    await expect(sh(m.dir, 'mkfifo fifo')).rejects.toThrow(/Operation not permitted/);
    expect((await fsp.readdir(m.dir)).sort()).toEqual(['.gitignore', 'src']);
  });

  it('real programs: an editor-style atomic save, tar x, rm -rf, and a pipeline writing ignored build output', async () => {
    const m = await mountedRepo(FILES);
    // Write a temporary file, fsync it, rename it over the original.
    await sh(m.dir, `python3 -c "
import os
fd = os.open('src/.a.txt.swp', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b'saved atomically\\n')
os.fsync(fd)
os.close(fd)
os.rename('src/.a.txt.swp', 'src/a.txt')
"`);
    expect(await fsp.readFile(m.at('src/a.txt'), 'utf8')).toBe('saved atomically\n');
    await sh(m.dir, 'mkdir -p /tmp/forge-tar-src-$$ && cd /tmp/forge-tar-src-$$ && mkdir -p pkg/lib && echo one > pkg/lib/1.txt && printf "#!/bin/sh\\n" > pkg/run && chmod +x pkg/run && tar cf ../forge-tar-$$.tar pkg && cd - >/dev/null && tar xf /tmp/forge-tar-$$.tar && rm -rf /tmp/forge-tar-src-$$ /tmp/forge-tar-$$.tar');
    expect(await fsp.readFile(m.at('pkg/lib/1.txt'), 'utf8')).toBe('one\n');
    expect((await fsp.stat(m.at('pkg/run'))).mode & 0o777).toBe(0o755);
    await sh(m.dir, 'mkdir -p dist node_modules/dep && cat src/*.txt | tr a-z A-Z > dist/out.txt && echo "module.exports = 1" > node_modules/dep/index.js && echo log > build.log');
    expect(await fsp.readFile(m.at('dist/out.txt'), 'utf8')).toContain('SAVED ATOMICALLY');
    // Ignored paths are on real disk in the scratch directory, not in the pending layer.
    expect(existsSync(join(m.mount.scratchDir!, 'node_modules/dep/index.js'))).toBe(true);
    expect(existsSync(join(m.mount.scratchDir!, 'dist/out.txt'))).toBe(true);
    await sh(m.dir, 'rm -rf src');
    expect(await exists(m.at('src'))).toBe(false);
    const turn = await m.session.commitTurn({ message: 'programs' });
    const paths = git(m.repo.gitdir, ['ls-tree', '-r', '--name-only', turn.commit]).stdout.split('\n').filter((p) => p && !p.startsWith('.forge/'));
    expect(paths.sort()).toEqual(['.gitignore', 'pkg/lib/1.txt', 'pkg/run']);
    expectFsckClean(m.repo.gitdir);
  });
});
