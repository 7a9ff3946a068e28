/**
 * Issue 27: `forge mcp --mount <dir>` serves the tools and keeps the session mounted at `dir` in
 * the same process. A real MCP client drives the server; plain `fs` calls write in the mount;
 * tool calls and the mount see each other's changes; commit_turn commits both; closing the
 * client unmounts.
 */
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { describeMount } from '../helpers/mount';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';
import { startMcp, textOf } from './mcp-harness';

describeMount('forge mcp --mount', () => {
  it('a client writes through the mount with plain fs calls, the tools see it, and commit_turn commits it', async () => {
    const repo = makeRepo({ files: { 'src/a.txt': 'alpha\n', '.gitignore': 'build/\n' } });
    const dir = join(makeTempDir('mcp-mount'), 'view');
    await fsp.mkdir(dir);
    const mcp = await startMcp(repo, ['--session', 'mm', '--mount', dir]);
    await fsp.writeFile(join(dir, 'src/b.txt'), 'written by the client\n');
    await fsp.mkdir(join(dir, 'build'));
    await fsp.writeFile(join(dir, 'build/out.bin'), 'ignored output\n');
    const read = await mcp.call('read_file', { path: 'src/b.txt' });
    expect(textOf(read)).toContain('written by the client');
    await mcp.call('read_file', { path: 'src/a.txt' });
    const edit = await mcp.call('Edit', { path: 'src/a.txt', old_snippet: 'alpha', new_snippet: 'ALPHA' });
    expect(edit.isError ?? false).toBe(false);
    expect(await fsp.readFile(join(dir, 'src/a.txt'), 'utf8')).toBe('ALPHA\n');
    const commit = await mcp.call('commit_turn', { message: 'through the mount' });
    expect(commit.isError ?? false, textOf(commit)).toBe(false);
    const files = git(repo.gitdir, ['ls-tree', '-r', '--name-only', 'forge/session/mm']).stdout.split('\n').filter((p) => p && !p.startsWith('.forge/'));
    expect(files.sort()).toEqual(['.gitignore', 'src/a.txt', 'src/b.txt']);
    expect(git(repo.gitdir, ['show', 'forge/session/mm:src/b.txt']).stdout).toBe('written by the client\n');
    await mcp.close();
    // The server unmounted on its way out: the directory is empty again.
    for (let i = 0; i < 100 && (await fsp.readdir(dir)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await fsp.readdir(dir)).toEqual([]);
    expectFsckClean(repo.gitdir);
  });
});
