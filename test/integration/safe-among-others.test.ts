/**
 * Issue "Safe among others": forge next to git's own gc, a second client, a full or read-only
 * disk and a branch moved behind its back. Each case drives the real CLI or MCP server against
 * a repository on disk and checks the result with the git CLI (fsck, ls-tree, show).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { copyFixture, gitShowBytes } from '../helpers/repos';
import { branchTip, startMcp, textOf } from './mcp-harness';

const turn = (repo: { dir: string }, session: string, calls = '[]') => forge(['turn', '--repo', repo.dir, '--session', session, '--calls', '-', '--json'], { input: calls });
const lsTree = (repo: { dir: string }, rev: string) => git(repo.dir, ['ls-tree', '-r', '--name-only', rev]).stdout.trim().split('\n');

describe('T-12.1: git gc between tool calls and the turn commit', () => {
  it('pending blobs are kept by refs/forge/pending/<id>: gc --prune=now, then a turn commits a complete tree', async () => {
    const repo = copyFixture('example-app');
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 's']).status).toBe(0);
    const mcp = await startMcp(repo, ['--session', 's']);
    expect((await mcp.call('write_file', { path: 'p.txt', content: 'x' })).isError).toBeFalsy();
    await mcp.close();
    expect(git(repo.dir, ['rev-parse', '--verify', 'refs/forge/pending/s']).status).toBe(0);
    git(repo.dir, ['gc', '-q', '--prune=now']);
    git(repo.dir, ['repack', '-adfq']);
    git(repo.dir, ['prune', '--expire=now']);
    const run = turn(repo, 's');
    expect(run.status, run.stderr).toBe(0);
    expect(gitShowBytes(repo.gitdir, 'forge/session/s', 'p.txt').toString()).toBe('x');
    // After the commit nothing is pending, and the pin is gone.
    expect(git(repo.dir, ['rev-parse', '--verify', '--quiet', 'refs/forge/pending/s'], { allowFail: true }).status).not.toBe(0);
    expectFsckClean(repo.gitdir);
    // The gc above wrote a commit-graph while the pin existed; dropping what the pin held leaves
    // that file naming nothing missing (a pin that is a commit would be listed there).
    git(repo.dir, ['repack', '-adfq']);
    git(repo.dir, ['prune']);
    expectFsckClean(repo.gitdir);
  });

  it('the blob an undo entry restores survives gc: across a server restart, and after the turn commit', () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 'u']);
    const mcp = (calls: Array<{ name: string; arguments: Record<string, unknown> }>) => forge(['mcp', '--repo', repo.dir, '--session', 'u'], { input: mcpLines(calls) });
    const write = (content: string) => ({ tool: 'write_file', args: { path: 'u.txt', content } });
    // Written twice in one turn: the undo entry restores the first version, which no commit holds.
    const staged = mcp([write('first 5e1a\n'), write('second 5e1a\n')].map((c) => ({ name: c.tool, arguments: c.args })));
    expect(staged.stdout).not.toContain('"isError":true');
    expect(mcp([]).status).toBe(0); // a restart: the next server re-pins the pending layer
    git(repo.dir, ['gc', '-q', '--prune=now']);
    const undone = mcp([{ name: 'Undo', arguments: {} }]);
    expect(undone.stdout).toContain('Reverted 1 file');
    expect(turn(repo, 'u').status).toBe(0);
    expect(gitShowBytes(repo.gitdir, 'forge/session/u', 'u.txt').toString()).toBe('first 5e1a\n');

    const twice = turn(repo, 'u', JSON.stringify([{ tool: 'read_file', args: { path: 'u.txt' } }, write('third 5e1a\n'), write('fourth 5e1a\n')]));
    expect(twice.status, twice.stderr).toBe(0);
    git(repo.dir, ['repack', '-adfq']);
    git(repo.dir, ['prune', '--expire=now']);
    const undo = forge(['undo', '--repo', repo.dir, '--session', 'u']);
    expect(undo.status, undo.stderr).toBe(0);
    expect(gitShowBytes(repo.gitdir, 'forge/session/u', 'u.txt').toString()).toBe('third 5e1a\n');
    expectFsckClean(repo.gitdir);
  });

  it('a running server keeps writing after gc removed the loose fan-out directories it had listed', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'long']);
    for (let i = 0; i < 5; i++) expect((await mcp.call('write_file', { path: `before-${i}.txt`, content: `b${i}` })).isError).toBeFalsy();
    git(repo.dir, ['gc', '-q', '--prune=now']);
    const results = [];
    for (let i = 0; i < 20; i++) results.push(await mcp.call('write_file', { path: `after-${i}.txt`, content: `a${i}` }));
    expect(results.filter((r) => r.isError).map(textOf)).toEqual([]);
    const commit = await mcp.call('commit_turn');
    expect(commit.isError, textOf(commit)).toBeFalsy();
    expect(lsTree(repo, 'forge/session/long').filter((p) => p.startsWith('after-') || p.startsWith('before-'))).toHaveLength(25);
    expectFsckClean(repo.gitdir);
  });

  it('a pending blob removed behind forge\'s back is dropped when the session is next opened, with a message naming it; that turn commits the rest, never the missing blob (issue 23, 4; issue 30, 3)', () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 'gone']);
    const head = branchTip(repo, 'gone');
    const write = turn(repo, 'gone', JSON.stringify([{ tool: 'write_file', args: { path: 'lost.txt', content: 'unique content 8d1c' } }]));
    expect(write.status).toBe(0);
    // Stage a pending blob, then delete its loose file (as a prune would have before the pin existed).
    const pending = forge(['mcp', '--repo', repo.dir, '--session', 'gone'], { input: mcpLines([{ name: 'write_file', arguments: { path: 'q.txt', content: 'pending 77aa' } }]) });
    expect(pending.status).toBe(0);
    const oid = git(repo.dir, ['hash-object', '--stdin'], { input: 'pending 77aa' }).stdout.trim();
    const loose = join(repo.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
    expect(existsSync(loose)).toBe(true);
    git(repo.dir, ['update-ref', '-d', 'refs/forge/pending/gone']);
    git(repo.dir, ['prune', '--expire=now']);
    expect(existsSync(loose)).toBe(false);
    const before = branchTip(repo, 'gone');
    expect(before).not.toBe(head);
    const run = turn(repo, 'gone');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/1 pending file\(s\) were dropped when the session was opened: .*\(q\.txt\)/);
    const committed = branchTip(repo, 'gone')!;
    expect(committed).not.toBe(before);
    expect(lsTree(repo, committed)).not.toContain('q.txt');
    expect(git(repo.dir, ['log', '-1', '--format=%B', committed]).stdout).toContain('dropped when the session was opened');
    expect(existsSync(join(repo.gitdir, 'forge', 'pending', 'gone.jsonl'))).toBe(false);
    expectFsckClean(repo.gitdir);
    // Not stuck: the next turn commits too.
    const next = turn(repo, 'gone', JSON.stringify([{ tool: 'write_file', args: { path: 'r.txt', content: 'after the prune' } }]));
    expect(next.status, next.stderr).toBe(0);
    expect(lsTree(repo, 'forge/session/gone')).toContain('r.txt');
    expect(lsTree(repo, 'forge/session/gone')).not.toContain('q.txt');
    expectFsckClean(repo.gitdir);
  });
});

describe('T-12.1: a process killed while a gc runs beside its turn commit', () => {
  /** Every object file now; what a gc that walked the refs at this moment would keep. */
  const reachable = (repo: { dir: string }) => new Set(git(repo.dir, ['rev-list', '--objects', '--all', '--reflog']).stdout.split('\n').map((l) => l.slice(0, 40)).filter(Boolean));
  /** The prune of that gc: every loose object it did not reach. */
  const pruneUnreached = (repo: { gitdir: string }, kept: Set<string>) => {
    const objects = join(repo.gitdir, 'objects');
    for (const fan of readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d))) {
      for (const name of readdirSync(join(objects, fan))) if (!kept.has(fan + name)) rmSync(join(objects, fan, name));
    }
  };

  it('waits out a running gc before moving the branch: killed while waiting, the branch is where it was and the edit still pending', async () => {
    const repo = copyFixture('example-app');
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'g']).status).toBe(0);
    const mcp = await startMcp(repo, ['--session', 'g']);
    expect((await mcp.call('write_file', { path: 'p.txt', content: 'kept\n' })).isError).toBeFalsy();
    await mcp.close();
    const before = git(repo.dir, ['rev-parse', 'forge/session/g']).stdout.trim();
    const kept = reachable(repo); // the running gc's walk
    const gcProcess = spawn('sleep', ['60']);
    writeFileSync(join(repo.gitdir, 'gc.pid'), `${gcProcess.pid} ${hostname()}`);
    try {
      const committing = spawn(process.execPath, [FORGE_BIN, 'turn', '--repo', repo.dir, '--session', 'g', '--calls', '-'], { env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '' } });
      committing.stdin.end('[]');
      await new Promise((done) => setTimeout(done, 1500));
      committing.kill('SIGKILL');
      await new Promise((done) => committing.once('exit', done));
      expect(git(repo.dir, ['rev-parse', 'forge/session/g']).stdout.trim()).toBe(before);
      pruneUnreached(repo, kept);
    } finally {
      gcProcess.kill();
      rmSync(join(repo.gitdir, 'gc.pid'), { force: true });
    }
    expectFsckClean(repo.gitdir);
    const run = turn(repo, 'g');
    expect(run.status, run.stderr).toBe(0);
    expect(gitShowBytes(repo.gitdir, 'forge/session/g', 'p.txt').toString()).toBe('kept\n');
    expectFsckClean(repo.gitdir);
  });

  it('a branch left naming a pruned commit goes back to its last complete commit on open, and the turn\'s edits are pending again', async () => {
    const repo = copyFixture('example-app');
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'h']).status).toBe(0);
    expect(turn(repo, 'h', JSON.stringify([{ tool: 'write_file', args: { path: 'one.txt', content: '1\n' } }])).status).toBe(0);
    const complete = git(repo.dir, ['rev-parse', 'forge/session/h']).stdout.trim();
    const mcp = await startMcp(repo, ['--session', 'h']);
    expect((await mcp.call('write_file', { path: 'two.txt', content: '2\n' })).isError).toBeFalsy();
    await mcp.close();
    // What a process killed after its compare-and-swap leaves when the gc's prune ran: the branch
    // on a new commit whose object is gone, the journal (made on the old head) still there.
    const lost = git(repo.dir, ['commit-tree', '-p', complete, '-m', 'lost turn', `${complete}^{tree}`]).stdout.trim();
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/h', lost, complete]);
    rmSync(join(repo.gitdir, 'objects', lost.slice(0, 2), lost.slice(2)));
    expect(git(repo.dir, ['fsck', '--strict'], { allowFail: true }).status).not.toBe(0);
    const run = turn(repo, 'h');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`the branch head ${lost.slice(0, 12)} had lost objects to a git gc/prune`);
    expect(git(repo.dir, ['rev-parse', 'forge/session/h^']).stdout.trim()).toBe(complete);
    expect(gitShowBytes(repo.gitdir, 'forge/session/h', 'two.txt').toString()).toBe('2\n');
    expectFsckClean(repo.gitdir);
  });
});

describe('T-12.2: two clients on one session', () => {
  it('the second writer gets SESSION_BUSY and no acknowledged edit is lost; a killed holder\'s lease is taken over', async () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 's']);
    const a = await startMcp(repo, ['--session', 's']);
    const b = await startMcp(repo, ['--session', 's']);
    expect((await a.call('write_file', { path: 'a.txt', content: 'x' })).isError).toBeFalsy();
    const second = await b.call('write_file', { path: 'b.txt', content: 'x' });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/^SESSION_BUSY: Session s is open for writing in process \d+ on /);
    process.kill(a.pid, 'SIGKILL');
    process.kill(b.pid, 'SIGKILL');
    await a.close();
    await b.close();
    // The holder is gone: a new process takes the lease over and commits A's edit.
    const run = turn(repo, 's');
    expect(run.status, run.stderr).toBe(0);
    expect(lsTree(repo, 'forge/session/s')).toContain('a.txt');
    expect(lsTree(repo, 'forge/session/s')).not.toContain('b.txt');
    expectFsckClean(repo.gitdir);
  });

  it('a running second server that takes over a gone holder\'s lease takes its pending edits over too; its refused call changed nothing', async () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 'to']);
    const a = await startMcp(repo, ['--session', 'to']);
    const b = await startMcp(repo, ['--session', 'to']);
    expect((await a.call('write_file', { path: 'a.txt', content: 'from a' })).isError).toBeFalsy();
    expect(textOf(await b.call('write_file', { path: 'refused.txt', content: 'no' }))).toMatch(/^SESSION_BUSY: /);
    process.kill(a.pid, 'SIGKILL');
    await a.close();
    // B was started before A's edit; taking the session over, it must not rewrite the journal without it.
    expect((await b.call('write_file', { path: 'b.txt', content: 'from b' })).isError).toBeFalsy();
    expect(textOf(await b.call('read_file', { path: 'a.txt' }))).toContain('from a');
    const commit = await b.call('commit_turn');
    expect(commit.isError, textOf(commit)).toBeFalsy();
    const files = lsTree(repo, 'forge/session/to');
    expect(files).toEqual(expect.arrayContaining(['a.txt', 'b.txt']));
    expect(files).not.toContain('refused.txt');
    expectFsckClean(repo.gitdir);
  });

  it('a second server that takes the session after the first one committed works on the new head: its turn commits there, nothing kept aside as a conflict', async () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 'nh']);
    const a = await startMcp(repo, ['--session', 'nh']);
    const b = await startMcp(repo, ['--session', 'nh']);
    expect((await a.call('write_file', { path: 'shared.txt', content: 'from a\n' })).isError).toBeFalsy();
    expect((await a.call('commit_turn')).isError).toBeFalsy();
    await a.close();
    // B opened before A's turn: it sees A's file, and its write replaces it (not "created").
    expect(textOf(await b.call('read_file', { path: 'shared.txt' }))).toContain('from a');
    expect(textOf(await b.call('write_file', { path: 'shared.txt', content: 'from b\n' }))).toContain('"created":false');
    const commit = await b.call('commit_turn');
    expect(commit.isError, textOf(commit)).toBeFalsy();
    await b.close();
    expect(gitShowBytes(repo.gitdir, 'forge/session/nh', 'shared.txt').toString()).toBe('from b\n');
    expect(git(repo.dir, ['for-each-ref', 'refs/forge/rescued']).stdout).toBe('');
    expectFsckClean(repo.gitdir);
  });

  it('discard is refused while a live server holds the session; --force makes the server notice and reload', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'd']);
    expect((await mcp.call('write_file', { path: 'old.txt', content: 'old' })).isError).toBeFalsy();
    const refused = forge(['session', 'discard', 'd', '--repo', repo.dir]);
    expect(refused.status).toBe(3);
    expect(refused.stderr).toContain('SESSION_BUSY');
    const forced = forge(['session', 'discard', 'd', '--repo', repo.dir, '--force', '--json']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.json().discarded).toEqual(['old.txt']);
    const noticed = await mcp.call('write_file', { path: 'new.txt', content: 'new' });
    expect(textOf(noticed)).toMatch(/^PENDING_DISCARDED: /);
    expect((await mcp.call('write_file', { path: 'new.txt', content: 'new' })).isError).toBeFalsy();
    expect((await mcp.call('commit_turn')).isError).toBeFalsy();
    const files = lsTree(repo, 'forge/session/d');
    expect(files).toContain('new.txt');
    expect(files).not.toContain('old.txt');
    expectFsckClean(repo.gitdir);
  });
});

describe('T-12.3: a torn or damaged journal', () => {
  it('a torn record in the middle keeps every whole record before it; discard works on a journal with a broken header', () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 't']);
    const calls = [0, 1, 2].map((i) => ({ tool: 'write_file', args: { path: `f${i}.txt`, content: `${i}` } }));
    const staged = forge(['mcp', '--repo', repo.dir, '--session', 't'], { input: mcpLines(calls.map((c) => ({ name: c.tool, arguments: c.args }))) });
    expect(staged.status).toBe(0);
    const journal = join(repo.gitdir, 'forge', 'pending', 't.jsonl');
    const lines = readFileSync(journal, 'utf8').trimEnd().split('\n');
    const last = lines.pop()!;
    expect(last).toContain('f2.txt'); // the third call's edit and record: one line
    // A full disk tore that record, and a later append landed right after the tear.
    writeFileSync(journal, [...lines, last.slice(0, 20) + last].join('\n') + '\n');
    const run = turn(repo, 't');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`torn at line ${lines.length + 1}: 1 record(s) from there on were dropped`);
    const files = lsTree(repo, 'forge/session/t');
    expect(files).toEqual(expect.arrayContaining(['f0.txt', 'f1.txt']));
    expect(files).not.toContain('f2.txt');

    forge(['mcp', '--repo', repo.dir, '--session', 't'], { input: mcpLines([{ name: 'write_file', arguments: { path: 'g.txt', content: 'g' } }]) });
    writeFileSync(journal, 'garbage\n');
    expect(turn(repo, 't').stderr).toContain('forge session discard t');
    const discard = forge(['session', 'discard', 't', '--repo', repo.dir]);
    expect(discard.status, discard.stderr).toBe(0);
    expect(discard.stdout).toContain('unreadable');
    expect(turn(repo, 't').status).toBe(0);
    expectFsckClean(repo.gitdir);
  });
});

describe('T-12.5: the branch moved under a running server', () => {
  it('commit_turn carries the pending layer onto the new head and commits there', async () => {
    const repo = copyFixture('example-app');
    const mcp = await startMcp(repo, ['--session', 'mv']);
    expect((await mcp.call('write_file', { path: 'mine.txt', content: 'm' })).isError).toBeFalsy();
    // Someone else commits to the session branch with git itself.
    const start = branchTip(repo, 'mv')!;
    const blob = git(repo.dir, ['hash-object', '-w', '--stdin'], { input: 'theirs' }).stdout.trim();
    const tree = git(repo.dir, ['mktree'], { input: `${git(repo.dir, ['ls-tree', start]).stdout}100644 blob ${blob}\ttheirs.txt\n` }).stdout.trim();
    const theirs = git(repo.dir, ['commit-tree', tree, '-p', start, '-m', 'theirs']).stdout.trim();
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/mv', theirs, start]);
    const commit = await mcp.call('commit_turn');
    expect(commit.isError, textOf(commit)).toBeFalsy();
    const tip = branchTip(repo, 'mv')!;
    expect(git(repo.dir, ['rev-parse', `${tip}^`]).stdout.trim()).toBe(theirs);
    expect(lsTree(repo, tip)).toEqual(expect.arrayContaining(['mine.txt', 'theirs.txt']));
    // And the next turn works too: not stuck.
    expect((await mcp.call('write_file', { path: 'later.txt', content: 'l' })).isError).toBeFalsy();
    expect((await mcp.call('commit_turn')).isError).toBeFalsy();
    expectFsckClean(repo.gitdir);
  });
});

describe('T-12.5: a journal re-opened after the branch moved', () => {
  it('carries what does not conflict, keeps the conflicting edit in a rescue commit, and says so', () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 'ro']);
    expect(turn(repo, 'ro', JSON.stringify([{ tool: 'write_file', args: { path: 'c.txt', content: 'base\n' } }])).status).toBe(0);
    const calls = [
      { name: 'read_file', arguments: { path: 'c.txt' } },
      { name: 'write_file', arguments: { path: 'c.txt', content: 'mine\n' } },
      { name: 'write_file', arguments: { path: 'd.txt', content: 'd\n' } },
    ];
    expect(forge(['mcp', '--repo', repo.dir, '--session', 'ro'], { input: mcpLines(calls) }).stdout).not.toContain('"isError":true');
    // Someone else changes c.txt on the session branch with git itself.
    const start = branchTip(repo, 'ro')!;
    const blob = git(repo.dir, ['hash-object', '-w', '--stdin'], { input: 'theirs\n' }).stdout.trim();
    const others = git(repo.dir, ['ls-tree', start]).stdout.split('\n').filter((l) => l !== '' && !l.endsWith('\tc.txt'));
    const tree = git(repo.dir, ['mktree'], { input: [...others, `100644 blob ${blob}\tc.txt`].join('\n') + '\n' }).stdout.trim();
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/ro', git(repo.dir, ['commit-tree', tree, '-p', start, '-m', 'theirs']).stdout.trim(), start]);
    const run = turn(repo, 'ro');
    expect(run.status, run.stderr).toBe(0);
    const rescue = /kept aside in (refs\/forge\/rescued\/ro\/\d+)/.exec(run.stderr)?.[1];
    expect(rescue, run.stderr).toBeDefined();
    expect(run.stderr).toContain('1 conflict with it (c.txt)');
    expect(gitShowBytes(repo.gitdir, 'forge/session/ro', 'c.txt').toString()).toBe('theirs\n');
    expect(gitShowBytes(repo.gitdir, 'forge/session/ro', 'd.txt').toString()).toBe('d\n');
    expect(gitShowBytes(repo.gitdir, rescue!, 'c.txt').toString()).toBe('mine\n');
    expectFsckClean(repo.gitdir);
  });
});

describe('T-12.7: smaller cases', () => {
  it('a turn on a session branch the user has checked out is refused (BRANCH_CHECKED_OUT), as git branch -f refuses', () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 'co']);
    git(repo.dir, ['checkout', '-q', 'forge/session/co']);
    const before = branchTip(repo, 'co');
    const run = turn(repo, 'co', JSON.stringify([{ tool: 'write_file', args: { path: 'x.txt', content: 'x' } }]));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('BRANCH_CHECKED_OUT');
    expect(branchTip(repo, 'co')).toBe(before);
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
    git(repo.dir, ['checkout', '-q', '-']);
    expect(turn(repo, 'co').status).toBe(0);
    expect(lsTree(repo, 'forge/session/co')).toContain('x.txt');
  });

  it('our own stale temporary object files (older than git\'s two-week grace period) are removed; fresh ones and git\'s are not', () => {
    const repo = copyFixture('example-app');
    const objects = join(repo.gitdir, 'objects');
    const old = join(objects, 'tmp_obj_forge_killedwriter');
    const fresh = join(objects, 'tmp_obj_forge_livewriter');
    const gits = join(objects, 'tmp_obj_AbCdEf');
    for (const path of [old, fresh, gits]) writeFileSync(path, 'partial');
    const threeWeeksAgo = Date.now() / 1000 - 21 * 24 * 3600;
    utimesSync(old, threeWeeksAgo, threeWeeksAgo);
    utimesSync(gits, threeWeeksAgo, threeWeeksAgo);
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'tmp']).status).toBe(0);
    expect(readdirSync(objects).filter((n) => n.startsWith('tmp_obj_')).sort()).toEqual(['tmp_obj_AbCdEf', 'tmp_obj_forge_livewriter']);
  });

  it('--id \'\' is rejected, not replaced by a random id', () => {
    const repo = copyFixture('example-app');
    const run = forge(['session', 'new', '--repo', repo.dir, '--id', '']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('INVALID_ARGUMENT');
    expect(git(repo.dir, ['for-each-ref', 'refs/heads/forge/']).stdout).toBe('');
  });
});

/** JSON-RPC lines for a one-shot MCP session: initialize, then each call (stdin closes after). */
function mcpLines(calls: Array<{ name: string; arguments: Record<string, unknown> }>): string {
  const lines = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...calls.map((call, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: call })),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('T-12.5: a writer killed while moving its pending ref', () => {
  it('its stale refs/forge/pending/<id>.lock does not block the next writer (the lease makes that ref ours)', () => {
    const repo = copyFixture('example-app');
    forge(['session', 'new', '--repo', repo.dir, '--id', 'lk']);
    const lock = join(repo.gitdir, 'refs', 'forge', 'pending', 'lk.lock');
    mkdirSync(join(repo.gitdir, 'refs', 'forge', 'pending'), { recursive: true });
    writeFileSync(lock, '');
    const old = Date.now() / 1000 - 60;
    utimesSync(lock, old, old);
    const run = turn(repo, 'lk', JSON.stringify([{ tool: 'write_file', args: { path: 'after-kill.txt', content: 'k' } }]));
    expect(run.status, run.stderr).toBe(0);
    expect(lsTree(repo, 'forge/session/lk')).toContain('after-kill.txt');
    expect(existsSync(lock)).toBe(false);
    expectFsckClean(repo.gitdir);
  });
});
