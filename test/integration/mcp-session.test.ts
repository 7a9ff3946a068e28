/**
 * `forge mcp` end to end, the session side: resources, --auto-commit every-call (with calls sent
 * without waiting), a branch moved under the server, pending changes surviving a killed server,
 * and the process itself (stdout holds only the protocol; clean exit; start-up failures).
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { FORGE_BIN } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { copyFixture, gitLsTree, gitShowBytes } from '../helpers/repos';
import { branchTip, sessionState, startMcp, textOf, type Json } from './mcp-harness';

describe('forge mcp: resources', () => {
  it('offers the session state and the pending diff, read-only', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'res', '--base', 'HEAD~1']);
    // Created from --base, since it did not exist.
    expect(git(repo.dir, ['rev-parse', 'forge/session/res^']).stdout.trim()).toBe(git(repo.dir, ['rev-parse', 'HEAD~1']).stdout.trim());
    const { resources } = await mcp.client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
      ['forge://session/res/state', 'application/json'],
      ['forge://session/res/pending.diff', 'text/x-diff'],
    ]);
    const emptyDiff = await mcp.client.readResource({ uri: 'forge://session/res/pending.diff' });
    expect(emptyDiff.contents).toEqual([{ uri: 'forge://session/res/pending.diff', mimeType: 'text/x-diff', text: '' }]);

    await mcp.call('write_file', { path: 'docs/notes.md', content: 'first\nsecond\n' });
    const diff = await mcp.client.readResource({ uri: 'forge://session/res/pending.diff' });
    const text = (diff.contents[0] as { text: string }).text;
    expect(text).toContain('+++ b/docs/notes.md');
    expect(text).toContain('+first\n+second\n');

    const state = await mcp.client.readResource({ uri: 'forge://session/res/state' });
    const parsed = JSON.parse((state.contents[0] as { text: string }).text) as Json;
    expect(parsed).toMatchObject({ id: 'res', branch: 'forge/session/res', turn: 0 });
    expect((parsed.toolCalls as Json[]).map((c) => c.tool)).toEqual(['write_file']);

    await expect(mcp.client.readResource({ uri: 'forge://session/other/state' })).rejects.toMatchObject({ code: -32002 });
  });
});

describe('forge mcp: --auto-commit every-call', () => {
  it('commits each successful call that changes files, in call order even when the client does not wait', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'auto', '--auto-commit', 'every-call']);
    const start = branchTip(repo, 'auto')!;

    await mcp.call('read_file', { path: 'package.json' });
    expect(branchTip(repo, 'auto')).toBe(start);

    const write = await mcp.call('write_file', { path: 'a.txt', content: 'a\n' });
    const afterWrite = branchTip(repo, 'auto')!;
    expect(afterWrite).not.toBe(start);
    expect(textOf(write)).toContain(`Committed turn 1 as ${afterWrite.slice(0, 12)} on forge/session/auto (1 file changed).`);
    expect(write._meta?.['forge/commit']).toMatchObject({ committed: true, commit: afterWrite, turn: 1, files: [{ path: 'a.txt', kind: 'added' }] });
    // Clients that give the model only structuredContent see the commit too (validated by the client against the listed schema).
    expect(write.structuredContent).toMatchObject({ path: 'a.txt', created: true, commit: { committed: true, commit: afterWrite, turn: 1 } });
    // The read-only call went with the first commit.
    expect((sessionState(repo, afterWrite, 'auto').toolCalls as Json[]).map((c) => c.tool)).toEqual(['read_file', 'write_file']);

    // A failed call commits nothing.
    const failed = await mcp.call('delete_file', { path: 'missing.txt' });
    expect(failed.isError).toBe(true);
    expect(branchTip(repo, 'auto')).toBe(afterWrite);

    // Five calls sent at once: served one at a time, five commits in a line.
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => mcp.call('write_file', { path: `many/${n}.txt`, content: `${n}\n` })));
    expect(results.every((r) => !r.isError)).toBe(true);
    const log = git(repo.dir, ['log', '--format=%s', `${afterWrite}..forge/session/auto`]).stdout.trim().split('\n');
    expect(log).toHaveLength(5);
    const tip = branchTip(repo, 'auto')!;
    expect(git(repo.dir, ['rev-list', '--count', `${start}..${tip}`]).stdout.trim()).toBe('6');
    expect(gitLsTree(repo.gitdir, tip).filter((e) => e.path.startsWith('many/')).map((e) => e.path)).toEqual(['many/1.txt', 'many/2.txt', 'many/3.txt', 'many/4.txt', 'many/5.txt']);
    expect((await mcp.call('session_status')).structuredContent).toMatchObject({ turn: 6, pending: { files: [] } });
    await mcp.close();
    expectFsckClean(repo.gitdir);
  });
});

describe('forge mcp: the branch moved under the server', () => {
  it('an automatic commit that loses the race carries the change onto the moved branch and commits it there', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'race', '--auto-commit', 'every-call']);
    const start = branchTip(repo, 'race')!;
    // Someone else moves the session branch (here: back to the base commit).
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/race', repo.head, start]);
    const write = await mcp.call('write_file', { path: 'b.txt', content: 'b\n' });
    expect(write.isError).toBeFalsy();
    expect(write.structuredContent).toMatchObject({ path: 'b.txt', created: true });
    const tip = branchTip(repo, 'race')!;
    expect(git(repo.dir, ['rev-parse', `${tip}^`]).stdout.trim()).toBe(repo.head);
    expect(gitShowBytes(repo.gitdir, tip, 'b.txt').toString('utf8')).toBe('b\n');
    expect((await mcp.call('session_status')).structuredContent).toMatchObject({ pending: { files: [] } });
    expectFsckClean(repo.gitdir);
  });
});

describe('forge mcp: restart', () => {
  it('pending changes survive a killed server: a restart with the same --session shows them, and commit_turn commits them', async () => {
    const repo = copyFixture('example-app');
    const first = await startMcp(repo, ['--session', 'crash']);
    const start = branchTip(repo, 'crash')!;
    await first.call('read_file', { path: 'src/math.js' });
    await first.call('Edit', { path: 'src/math.js', old_snippet: '  // TODO: an empty list gives NaN; decide what it should return.\n', new_snippet: '' });
    await first.call('write_file', { path: 'CHANGELOG.md', content: '# Changes\n' });
    process.kill(first.pid, 'SIGKILL');
    await first.close();
    expect(branchTip(repo, 'crash')).toBe(start);

    const second = await startMcp(repo, ['--session', 'crash', '--base', 'HEAD']);
    expect(second.stderr()).toMatch(/forge mcp: session crash on forge\/session\/crash at [0-9a-f]{12} \(turn 0; 2 pending change\(s\);/);
    expect(second.stderr()).toContain('forge mcp: --base HEAD ignored: session crash exists');
    const status = await second.call('session_status');
    expect(status.structuredContent).toMatchObject({
      head: start,
      pending: {
        files: [
          { path: 'CHANGELOG.md', kind: 'added', added: 1, removed: 0 },
          { path: 'src/math.js', kind: 'modified', added: 0, removed: 1 },
        ],
        tool_calls: 3,
      },
    });
    // The read tracking survived too: the file can be edited again without reading it.
    expect((await second.call('Edit', { path: 'src/math.js', old_snippet: 'values.length', new_snippet: 'values.length || 1' })).isError).toBeFalsy();
    const commit = await second.call('commit_turn', { message: 'After a crash' });
    const tip = branchTip(repo, 'crash')!;
    expect(commit.structuredContent).toMatchObject({ committed: true, commit: tip, turn: 1, files: [{ path: 'CHANGELOG.md' }, { path: 'src/math.js' }] });
    expect(gitShowBytes(repo.gitdir, tip, 'CHANGELOG.md').toString('utf8')).toBe('# Changes\n');
    expect(gitShowBytes(repo.gitdir, tip, 'src/math.js').toString('utf8')).not.toContain('TODO');
    expect((sessionState(repo, tip, 'crash').toolCalls as Json[]).map((c) => c.tool)).toEqual(['read_file', 'Edit', 'write_file', 'Edit']);
    await second.close();
    expectFsckClean(repo.gitdir);
  });
});

describe('forge mcp: the process', () => {
  it('writes only JSON-RPC on stdout and exits 0 when the client closes stdin', async () => {
    const repo = copyFixture('example-app');
    const child = spawn(process.execPath, [FORGE_BIN, 'mcp', '--repo', repo.dir], { env: hermeticGitEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const send = (message: Json) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'list_files', arguments: { glob: '*.md' } } });
    send({ id: 3, method: 'tools/call', params: { name: 'read_file', arguments: { path: '.git/config' } } });
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    const messages = lines.map((l) => JSON.parse(l) as Json);
    expect(messages.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(messages.every((m) => m.jsonrpc === '2.0' && 'result' in m)).toBe(true);
    expect((messages[0]!.result as Json).serverInfo).toMatchObject({ name: 'forge' });
    expect((messages[0]!.result as Json).instructions).toMatch(/commit_turn/);
    expect(((messages[2]!.result as Json).content as Json[])[0]!.text).toMatch(/^PATH_GIT_DIR: /);
    expect(stderr).toMatch(/^forge mcp: session [0-9a-f-]+ on forge\/session\/[0-9a-f-]+ at [0-9a-f]{12} \(new, /);
    expect(stderr).toContain('forge mcp: the client closed the connection; stopping.');
  });

  it('fails at start with the error code on stderr, nothing on stdout, and a user exit code', async () => {
    const repo = copyFixture('example-app');
    const child = spawn(process.execPath, [FORGE_BIN, 'mcp', '--repo', repo.dir, '--base', 'no-such-ref'], { env: hermeticGitEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^forge: error REF_NOT_FOUND: /);
    expect(code).toBe(2);
  });
});
