/**
 * forge merge / rebase / diff end to end: the built CLI on real repositories, read back with the
 * git CLI. Output shapes (--json and text) and exit codes; a checked-out target's index and
 * working tree brought along (git status clean afterwards), and refused, with nothing changed,
 * when it has changes or untracked files in the way; bare repositories; fsck after every write.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { makeRepo, snapshotWorkTree, type RepoHandle } from '../helpers/repos';

const lines = (n: number, replace: Record<number, string> = {}) => Array.from({ length: n }, (_, i) => `${replace[i + 1] ?? `line ${i + 1}`}\n`).join('');

let repo: RepoHandle;

function session(id: string, target = repo) {
  const run = forge(['session', 'new', '--repo', target.dir, '--id', id, '--base', 'main']);
  expect(run.status).toBe(0);
}

/** One turn writing files (each read first, as the tools require for existing files). */
function write(id: string, files: Record<string, string>, target = repo) {
  const calls = Object.entries(files).flatMap(([path, content]) => [
    { tool: 'read_file', args: { path } },
    { tool: 'write_file', args: { path, content } },
  ]);
  const run = forge(['turn', '--repo', target.dir, '--session', id, '--calls', '-', '--json'], { input: JSON.stringify(calls) });
  // Reading a file that does not exist yet fails (exit 5, failed tool calls); the turn is committed all the same.
  expect(run.status === 0 || (run.status === 5 && run.json().results.every((r: { tool: string; ok: boolean }) => r.ok || r.tool === 'read_file'))).toBe(true);
  return run.json().commit as string;
}

const rev = (ref: string, target = repo) => git(target.dir, ['rev-parse', ref]).stdout.trim();
const status = (target = repo) => git(target.dir, ['status', '--porcelain']).stdout;

beforeEach(() => {
  repo = makeRepo({ files: { 'a.txt': lines(10), 'b.txt': 'b\n', 'run.sh': { content: '#!/bin/sh\n', mode: '100755' }, 'docs/guide.md': '# guide\n' } });
});

describe('forge merge', () => {
  it('fast-forwards the checked-out main and updates its working tree and index', () => {
    session('s1');
    const commit = write('s1', { 'a.txt': lines(10, { 1: 'one' }), 'docs/new.md': 'new\n' });
    const run = forge(['merge', 's1', '--repo', repo.dir, '--json', '--keep-session-files']);
    expect(run.status).toBe(0);
    expect(run.json()).toMatchObject({ status: 'fast-forward', commit, target: { ref: 'refs/heads/main', after: commit }, worktreeUpdated: true });
    expect(rev('main')).toBe(commit);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe(lines(10, { 1: 'one' }));
    expect(readFileSync(join(repo.dir, 'docs/new.md'), 'utf8')).toBe('new\n');
    expect(status()).toBe('');
    // The index is exactly the new tree.
    expect(git(repo.dir, ['diff', '--cached', '--name-only']).stdout).toBe('');
    expectFsckClean(repo.gitdir);
  });

  it('merges a second session with a three-way merge commit; text output; git status stays clean', () => {
    session('s1');
    session('s2');
    write('s1', { 'a.txt': lines(10, { 2: 'from s1' }) });
    const s2 = write('s2', { 'a.txt': lines(10, { 9: 'from s2' }), 'c.txt': 'c\n' });
    expect(forge(['merge', 's1', '--repo', repo.dir]).status).toBe(0);
    const before = rev('main');
    const run = forge(['merge', 's2', '--repo', repo.dir]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Merged forge\/session\/s2 into main: commit [0-9a-f]{40} \(tree [0-9a-f]{40}\)\nUpdated the working tree\.\n$/);
    expect(git(repo.dir, ['rev-parse', 'main^1', 'main^2']).stdout.trim().split('\n')).toEqual([before, s2]);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe(lines(10, { 2: 'from s1', 9: 'from s2' }));
    expect(readFileSync(join(repo.dir, 'c.txt'), 'utf8')).toBe('c\n');
    expect(status()).toBe('');
    expect(git(repo.dir, ['log', '-1', '--format=%s', 'main']).stdout).toBe("Merge branch 'forge/session/s2' into main\n");
    expectFsckClean(repo.gitdir);
  });

  it('reports a conflict as JSON (exit 3), writes nothing, and --conflict-branch holds the markers', () => {
    session('s1');
    session('s2');
    write('s1', { 'a.txt': lines(10, { 5: 'one way' }) });
    write('s2', { 'a.txt': lines(10, { 5: 'other way' }) });
    forge(['merge', 's1', '--repo', repo.dir]);
    const before = { main: rev('main'), tree: snapshotWorkTree(repo.dir) };
    const run = forge(['merge', 's2', '--repo', repo.dir, '--json', '--conflict-branch', 'resolve-s2']);
    expect(run.status).toBe(3);
    expect(run.stderr).toBe('');
    const out = run.json();
    expect(out.status).toBe('conflict');
    expect(out.conflicts).toEqual([
      {
        path: 'a.txt',
        kind: 'content',
        message: 'Both sides changed a.txt: 1 conflicting region.',
        base: { mode: '100644', oid: expect.any(String) },
        ours: { mode: '100644', oid: expect.any(String) },
        theirs: { mode: '100644', oid: expect.any(String) },
        hunks: [{ base: { start: 5, count: 1, text: 'line 5\n' }, ours: { start: 5, count: 1, text: 'one way\n' }, theirs: { start: 5, count: 1, text: 'other way\n' } }],
      },
    ]);
    expect(rev('main')).toBe(before.main);
    expect(snapshotWorkTree(repo.dir)).toBe(before.tree);
    expect(git(repo.dir, ['show', 'resolve-s2:a.txt']).stdout).toBe(lines(10, { 5: '<<<<<<< main\none way\n=======\nother way\n>>>>>>> forge/session/s2' }));
    expect(git(repo.dir, ['rev-parse', 'resolve-s2^1', 'resolve-s2^2']).stdout.trim().split('\n')).toEqual([before.main, rev('forge/session/s2')]);

    const text = forge(['merge', 's2', '--repo', repo.dir]);
    expect(text.status).toBe(3);
    expect(text.stdout).toContain('CONFLICT: merging forge/session/s2 into main: 1 conflicted path; nothing was written to main.\ncontent        a.txt\n');
    expect(text.stdout).toContain('    ours:\n      | one way\n    theirs:\n      | other way\n');
    expectFsckClean(repo.gitdir);
  });

  it('--dry-run reports the tree it wrote and moves nothing; --no-ff makes a merge commit', () => {
    session('s1');
    const commit = write('s1', { 'b.txt': 'B\n' });
    const dry = forge(['merge', 's1', '--repo', repo.dir, '--json', '--dry-run', '--no-ff']);
    expect(dry.status).toBe(0);
    expect(dry.json()).toMatchObject({ status: 'merged', dryRun: true, target: { after: repo.head } });
    expect(git(repo.dir, ['cat-file', '-t', dry.json().tree]).stdout).toBe('tree\n');
    expect(rev('main')).toBe(repo.head);
    const real = forge(['merge', 's1', '--repo', repo.dir, '--json', '--no-ff', '--message', 'Land s1']);
    expect(real.json()).toMatchObject({ status: 'merged', tree: dry.json().tree });
    expect(git(repo.dir, ['rev-parse', 'main^2']).stdout.trim()).toBe(commit);
    expect(git(repo.dir, ['log', '-1', '--format=%B', 'main']).stdout).toBe('Land s1\n\n');
    expect(status()).toBe('');
  });

  it('refuses a dirty checked-out target (WORKTREE_DIRTY, exit 2) and changes nothing', () => {
    session('s1');
    write('s1', { 'b.txt': 'B\n' });
    writeFileSync(join(repo.dir, 'a.txt'), 'local edit\n');
    const before = snapshotWorkTree(repo.dir);
    const run = forge(['merge', 's1', '--repo', repo.dir, '--json']);
    expect(run.status).toBe(2);
    expect(run.json().error).toMatchObject({ code: 'WORKTREE_DIRTY', data: { paths: ['a.txt (modified)'] } });
    expect(rev('main')).toBe(repo.head);
    expect(snapshotWorkTree(repo.dir)).toBe(before);
    expect(existsSync(join(repo.gitdir, 'index.lock'))).toBe(false);
    // Staged changes count too.
    writeFileSync(join(repo.dir, 'a.txt'), lines(10));
    git(repo.dir, ['add', 'a.txt']);
    writeFileSync(join(repo.dir, 'staged.txt'), 's\n');
    git(repo.dir, ['add', 'staged.txt']);
    const staged = forge(['merge', 's1', '--repo', repo.dir]);
    expect(staged.status).toBe(2);
    expect(staged.stderr).toMatch(/^forge: error WORKTREE_DIRTY: .*staged\.txt \(staged\)/);
    expect(rev('main')).toBe(repo.head);
  });

  it('refuses when untracked files are in the way (WORKTREE_IN_THE_WAY) and changes nothing', () => {
    session('s1');
    write('s1', { 'new.txt': 'from session\n' });
    writeFileSync(join(repo.dir, 'new.txt'), 'mine, untracked\n');
    const before = snapshotWorkTree(repo.dir);
    const run = forge(['merge', 's1', '--repo', repo.dir]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^forge: error WORKTREE_IN_THE_WAY: Untracked files in .* would be overwritten: new\.txt\. Nothing was changed\./);
    expect(snapshotWorkTree(repo.dir)).toBe(before);
    expect(rev('main')).toBe(repo.head);
    // Untracked files elsewhere do not matter.
    git(repo.dir, ['clean', '-fq']);
    writeFileSync(join(repo.dir, 'unrelated.log'), 'x\n');
    expect(forge(['merge', 's1', '--repo', repo.dir]).status).toBe(0);
    expect(status()).toBe('?? unrelated.log\n');
  });

  it('moves a branch that is not checked out without touching the working tree', () => {
    git(repo.dir, ['branch', 'release']);
    session('s1');
    const commit = write('s1', { 'b.txt': 'B\n' });
    const before = snapshotWorkTree(repo.dir);
    const run = forge(['merge', 's1', '--repo', repo.dir, '--into', 'release', '--json', '--keep-session-files']);
    expect(run.json()).toMatchObject({ status: 'fast-forward', worktreeUpdated: false });
    expect(rev('release')).toBe(commit);
    expect(snapshotWorkTree(repo.dir)).toBe(before);
  });

  it('leaves the session files out of a branch that is not a session branch by default; the conversation stays reachable', () => {
    session('s1');
    const head = write('s1', { 'a.txt': lines(10, { 1: 'one' }) });
    const before = rev('main');
    const run = forge(['merge', 's1', '--repo', repo.dir, '--json']);
    expect(run.status).toBe(0);
    // A fast-forward would carry .forge/sessions/s1.json into main: a merge commit instead.
    expect(run.json()).toMatchObject({ status: 'merged', worktreeUpdated: true });
    expect(git(repo.dir, ['rev-parse', 'main^1', 'main^2']).stdout.trim().split('\n')).toEqual([before, head]);
    const paths = git(repo.dir, ['ls-tree', '-r', '--name-only', 'main']).stdout.split('\n');
    expect(paths.filter((p) => p.startsWith('.forge/'))).toEqual([]);
    expect(git(repo.dir, ['show', 'main:a.txt']).stdout).toBe(lines(10, { 1: 'one' }));
    expect(JSON.parse(git(repo.dir, ['show', 'main^2:.forge/sessions/s1.json']).stdout).id).toBe('s1');
    expect(existsSync(join(repo.dir, '.forge'))).toBe(false);
    expect(status()).toBe('');
    expectFsckClean(repo.gitdir);
  });

  it('--keep-session-files carries them (a fast-forward stays one); contradicting flags are a usage error', () => {
    session('s1');
    const head = write('s1', { 'a.txt': 'kept\n' });
    const both = forge(['merge', 's1', '--repo', repo.dir, '--keep-session-files', '--drop-session-files']);
    expect(both.status).toBe(2);
    expect(both.stderr).toMatch(/^forge: error INVALID_ARGUMENT: /);
    expect(rev('main')).not.toBe(head);
    expect(forge(['merge', 's1', '--repo', repo.dir, '--json', '--keep-session-files']).json()).toMatchObject({ status: 'fast-forward', commit: head });
    expect(git(repo.dir, ['ls-tree', '--name-only', 'main', '.forge/sessions/']).stdout).toBe('.forge/sessions/s1.json\n');
  });

  it('works in a bare repository', () => {
    const bare = makeRepo({ files: { 'a.txt': lines(6) }, bare: true });
    session('s1', bare);
    session('s2', bare);
    write('s1', { 'a.txt': lines(6, { 1: 'x' }) }, bare);
    write('s2', { 'a.txt': lines(6, { 6: 'y' }) }, bare);
    expect(forge(['merge', 's1', '--repo', bare.dir, '--json', '--keep-session-files']).json().status).toBe('fast-forward');
    const run = forge(['merge', 's2', '--repo', bare.dir, '--json']);
    expect(run.json()).toMatchObject({ status: 'merged', worktreeUpdated: false });
    expect(git(bare.gitdir, ['show', 'main:a.txt']).stdout).toBe(lines(6, { 1: 'x', 6: 'y' }));
    expectFsckClean(bare.gitdir);
  });
});

describe('forge rebase', () => {
  it('replays the session onto the moved main (JSON), then conflicts (exit 3) leaving the branch', () => {
    session('s1');
    write('s1', { 'a.txt': lines(10, { 1: 'session' }) });
    session('s2');
    write('s2', { 'a.txt': lines(10, { 10: 'upstream' }) });
    forge(['merge', 's2', '--repo', repo.dir]);
    const run = forge(['rebase', 's1', '--onto', 'main', '--repo', repo.dir, '--json']);
    expect(run.status).toBe(0);
    const out = run.json();
    expect(out).toMatchObject({ status: 'rebased', session: 's1', onto: { ref: 'main', commit: rev('main') } });
    expect(out.replayed).toHaveLength(2);
    expect(git(repo.dir, ['show', 'forge/session/s1:a.txt']).stdout).toBe(lines(10, { 1: 'session', 10: 'upstream' }));
    expect(JSON.parse(git(repo.dir, ['show', 'forge/session/s1:.forge/sessions/s1.json']).stdout).base).toEqual({ ref: 'main', commit: rev('main') });
    expect(git(repo.dir, ['merge-base', '--is-ancestor', 'main', 'forge/session/s1'], { allowFail: true }).status).toBe(0);

    session('s3');
    write('s3', { 'a.txt': lines(10, { 1: 'clash' }) });
    forge(['merge', 's1', '--repo', repo.dir]);
    const before = rev('forge/session/s3');
    const conflict = forge(['rebase', 's3', '--onto', 'main', '--repo', repo.dir]);
    expect(conflict.status).toBe(3);
    expect(conflict.stdout).toMatch(/^CONFLICT: rebasing session s3 onto main stopped at commit [0-9a-f]{12} \(.*\), step 2; the session branch was left as it was\.\ncontent        a\.txt\n/);
    expect(rev('forge/session/s3')).toBe(before);
    expect(status()).toBe('');
    expectFsckClean(repo.gitdir);
  });
});

describe('forge diff', () => {
  it('prints what the session would bring, as a patch or --stat, without the session files', () => {
    session('s1');
    write('s1', { 'a.txt': lines(10, { 3: 'three' }), 'docs/new.md': 'n\n' });
    const patch = forge(['diff', 's1', '--repo', repo.dir]);
    expect(patch.status).toBe(0);
    expect(patch.stdout).toContain('diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+three\n');
    expect(patch.stdout).toContain('diff --git a/docs/new.md b/docs/new.md\n--- /dev/null\n+++ b/docs/new.md\n');
    expect(patch.stdout).not.toContain('.forge/');
    const stat = forge(['diff', 's1', '--repo', repo.dir, '--stat']);
    expect(stat.stdout).toBe(' a.txt       | 2 +-\n docs/new.md | 1 +\n 2 files changed, 2 insertions(+), 1 deletion(-)\n');
    // git's own --stat of the same range, the session files left out, is the oracle.
    expect(stat.stdout).toBe(git(repo.dir, ['diff', '--stat=80', '--no-renames', 'HEAD...forge/session/s1', '--', '.', ':!.forge']).stdout);
    const json = forge(['diff', 's1', '--repo', repo.dir, '--against', 'main', '--json']).json();
    expect(json).toMatchObject({ session: 's1', against: { ref: 'main', commit: repo.head }, base: repo.head, added: 2, removed: 1 });
    expect(json.files.map((f: { path: string }) => f.path)).toEqual(['a.txt', 'docs/new.md']);
  });
});
