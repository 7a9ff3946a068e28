/**
 * Undo (spec 000): hash-verified, atomic reversal of the last edit, inside the pending layer or
 * across committed turns, through real sessions on memfs and on disk, and the `forge undo` CLI.
 */
import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { SessionStore, sessionRef } from '../../src/session';
import { BUILTIN_TOOLS, ToolRegistry, allowAll, defineTool, type ToolResult } from '../../src/tools';
import { NO_EDITS_MESSAGE } from '../../src/tools/builtin/undo';
import { BACKENDS, bytes, text, type EngineRepo } from '../helpers/engine-repos';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { expectFsckClean } from '../helpers/fsck';
import { copyFixture, gitLsTree, gitShowBytes } from '../helpers/repos';

/** A test tool that changes several files in one call, as run_command with apply_changes does. */
const writeMany = defineTool({
  name: 'write_many',
  description: 'Test tool: write several files in one call.',
  input: z.strictObject({ files: z.record(z.string(), z.string()) }),
  sideEffects: true,
  paths: (input) => Object.keys(input.files).map((path) => ({ field: 'files', path, role: 'write' as const })),
  async handler(input, ctx) {
    for (const [path, content] of Object.entries(input.files)) await ctx.vfs.writeFile(path, bytes(content));
    return { written: Object.keys(input.files).length };
  },
});

const FILES = {
  'src/a.txt': 'alpha\nbeta\ngamma\n',
  'src/b.txt': 'one\ntwo\n',
  'bin/tool.sh': { content: '#!/bin/sh\necho hi\n', mode: '100755' as const },
};

function ok(result: ToolResult): unknown {
  if (!result.ok) throw new Error(`${result.tool} failed: ${result.error.code}: ${result.error.message}`);
  return result.output;
}

async function open(repo: EngineRepo, id = 'u') {
  const store = new SessionStore(await repo.open());
  const session = await store.create({ id, base: 'main' });
  const tools = new SessionToolRunner(session, { approval: allowAll, registry: new ToolRegistry([...BUILTIN_TOOLS, writeMany]) });
  return { store, session, tools };
}

describe.each(BACKENDS.filter((b) => b.name !== 'memfs+portable'))('Undo on $name', (backend) => {
  it('T-UNDO-01: Undo restores the original bytes after an Edit that empties a file', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools } = await open(repo);
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/a.txt' } }));
    ok(await tools.call({ tool: 'Edit', args: { path: 'src/a.txt', old_snippet: 'alpha\nbeta\ngamma\n', new_snippet: '' } }));
    expect(text(await session.vfs.readFile('src/a.txt'))).toBe('');
    const out = ok(await tools.call({ tool: 'Undo', args: {} })) as { reverted: number; paths: string[] };
    expect(out).toMatchObject({ reverted: 1, paths: ['src/a.txt'] });
    expect(text(await session.vfs.readFile('src/a.txt'))).toBe('alpha\nbeta\ngamma\n');
    // Back to its base content: it leaves the pending set.
    expect(await session.vfs.diff()).toEqual([]);
  });

  it('T-UNDO-02: Undo removes a file created by an edit', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools } = await open(repo);
    ok(await tools.call({ tool: 'Patch', args: { path: 'new/dir/c.txt', patches: [{ operation: 'overwrite', newText: 'created\n' }] } }));
    expect(await session.vfs.exists('new/dir/c.txt')).toBe(true);
    ok(await tools.call({ tool: 'Undo', args: {} }));
    expect(await session.vfs.exists('new/dir/c.txt')).toBe(false);
    expect(await session.vfs.exists('new')).toBe(false);
  });

  it('T-UNDO-03: with no edit, Undo fails with exactly the empty-state message', async () => {
    const repo = await backend.make({ files: FILES });
    const { tools } = await open(repo);
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/a.txt' } }));
    const result = await tools.call({ tool: 'Undo', args: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toBe('No edits have been applied to any file with this session.');
      expect(result.error.code).toBe('UNDO_NOTHING_TO_UNDO');
    }
    expect(NO_EDITS_MESSAGE).toBe('No edits have been applied to any file with this session.');
  });

  it('T-UNDO-04: Undo refuses with "hash mismatch" and changes nothing when a file changed after the edit', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools } = await open(repo);
    ok(await tools.call({ tool: 'write_many', args: { files: { 'src/a.txt': 'A\n', 'src/b.txt': 'B\n' } } }));
    // Changed behind the tools' back (as a person or a command would).
    await session.vfs.writeFile('src/b.txt', bytes('B edited by someone else\n'));
    const before = await session.vfs.diff();
    const result = await tools.call({ tool: 'Undo', args: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('UNDO_REFUSED');
      expect(result.error.message).toContain('hash mismatch');
      expect(result.error.message).toContain('src/b.txt');
    }
    expect(await session.vfs.diff()).toEqual(before);
    expect(text(await session.vfs.readFile('src/a.txt'))).toBe('A\n');
    expect(session.state.undo).not.toBeNull();
  });

  it('T-UNDO-05: Undo is atomic across files: a failure in the middle of applying leaves the view, the entry and the branch unchanged', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools } = await open(repo);
    ok(await tools.call({ tool: 'write_many', args: { files: { 'src/a.txt': 'A\n', 'src/b.txt': 'B\n', 'src/new.txt': 'N\n' } } }));
    await session.commitTurn();
    const head = session.head;
    const viewBefore = await session.vfs.walk('');
    const entryBefore = structuredClone(session.state.undo);
    // The second object write of the undo fails (a full disk, say).
    const objects = session.repo.objects;
    const write = objects.write.bind(objects);
    let calls = 0;
    objects.write = async (type, content) => {
      calls++;
      if (calls === 2) throw new Error('injected: disk full');
      return write(type, content);
    };
    const result = await tools.call({ tool: 'Undo', args: {} });
    objects.write = write;
    expect(result.ok).toBe(false);
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(await session.vfs.walk('')).toEqual(viewBefore);
    expect(await session.vfs.diff()).toEqual([]);
    expect(session.state.undo).toEqual(entryBefore);
    expect(await session.repo.refs.resolve(sessionRef('u'))).toBe(head);
    // And once the disk is fine again the same undo succeeds.
    ok(await tools.call({ tool: 'Undo', args: {} }));
    expect(text(await session.vfs.readFile('src/a.txt'))).toBe(FILES['src/a.txt']);
    expect(await session.vfs.exists('src/new.txt')).toBe(false);
  });

  it('T-UNDO-06: after Undo, a following Edit needs a fresh read_file', async () => {
    const repo = await backend.make({ files: FILES });
    const { tools } = await open(repo);
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/a.txt' } }));
    ok(await tools.call({ tool: 'Edit', args: { path: 'src/a.txt', old_snippet: 'beta', new_snippet: 'BETA' } }));
    ok(await tools.call({ tool: 'Undo', args: {} }));
    const edit = await tools.call({ tool: 'Edit', args: { path: 'src/a.txt', old_snippet: 'beta', new_snippet: 'B' } });
    expect(edit.ok).toBe(false);
    if (!edit.ok) expect(['FILE_NOT_READ', 'STALE_FILE']).toContain(edit.error.code);
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/a.txt' } }));
    ok(await tools.call({ tool: 'Edit', args: { path: 'src/a.txt', old_snippet: 'beta', new_snippet: 'B' } }));
  });

  it('clears the entry on success (no double undo) and a later edit becomes the new entry', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools } = await open(repo);
    ok(await tools.call({ tool: 'write_file', args: { path: 'x.txt', content: 'x\n' } }));
    ok(await tools.call({ tool: 'Undo', args: {} }));
    expect(session.state.undo).toBeNull();
    const again = await tools.call({ tool: 'Undo', args: {} });
    expect(!again.ok && again.error.message).toBe(NO_EDITS_MESSAGE);
  });

  it('restores a deleted executable with its mode, and records nothing for calls that changed no file', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools } = await open(repo);
    ok(await tools.call({ tool: 'delete_file', args: { path: 'bin/tool.sh' } }));
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/b.txt' } }));
    ok(await tools.call({ tool: 'list_files', args: {} }));
    expect(session.state.undo?.tool).toBe('delete_file');
    ok(await tools.call({ tool: 'Undo', args: {} }));
    expect(await session.vfs.stat('bin/tool.sh')).toMatchObject({ mode: '100755' });
    expect(text(await session.vfs.readFile('bin/tool.sh'))).toBe('#!/bin/sh\necho hi\n');
  });

  it('refuses with "hash mismatch" when a later turn changed the file, and the branch does not move', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools } = await open(repo);
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/a.txt' } }));
    ok(await tools.call({ tool: 'Edit', args: { path: 'src/a.txt', old_snippet: 'beta', new_snippet: 'BETA' } }));
    await session.commitTurn();
    // The next turn changes the file without a tool call that would replace the entry (a person's library call, say).
    await session.vfs.writeFile('src/a.txt', bytes('rewritten by turn 2\n'));
    await session.commitTurn();
    const head = session.head;
    const result = await tools.call({ tool: 'Undo', args: {} });
    expect(!result.ok && result.error.code).toBe('UNDO_REFUSED');
    expect(!result.ok && result.error.message).toContain('hash mismatch: src/a.txt');
    expect(await session.vfs.diff()).toEqual([]);
    expect(await session.repo.refs.resolve(sessionRef('u'))).toBe(head);
  });

  it('undoes an edit committed in an earlier turn by staging the reversal into the current turn, whose message notes it', async () => {
    const repo = await backend.make({ files: FILES });
    const { session, tools, store } = await open(repo);
    ok(await tools.call({ tool: 'read_file', args: { path: 'src/b.txt' } }));
    ok(await tools.call({ tool: 'Edit', args: { path: 'src/b.txt', old_snippet: 'two', new_snippet: 'TWO' } }));
    await session.commitTurn();
    // A process restart: the entry comes back with the committed session state.
    const reopened = await store.open('u');
    const tools2 = new SessionToolRunner(reopened, { approval: allowAll });
    ok(await tools2.call({ tool: 'write_file', args: { path: 'other.txt', content: 'o\n' } }));
    // The write replaced the entry; undo it, then nothing older is undoable.
    ok(await tools2.call({ tool: 'Undo', args: {} }));
    const turn = await reopened.commitTurn();
    expect(turn.message).toContain('Undo of turn 2: write_file other.txt');
    expect(turn.changes).toEqual([]);
    if (repo.onDisk) repo.fsck();
  });
});

describe('forge undo (revert commit)', () => {
  function setup() {
    const repo = copyFixture('edge-cases');
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'rv']).status).toBe(0);
    return repo;
  }
  const turn = (dir: string, calls: unknown[]) => forge(['turn', '--repo', dir, '--session', 'rv', '--calls', '-', '--json'], { input: JSON.stringify(calls) });

  it('writes a revert commit whose tree equals the pre-edit tree for those paths, after a restart, fsck clean', () => {
    const repo = setup();
    const edit = turn(repo.dir, [
      { tool: 'read_file', args: { path: 'text/crlf.txt' } },
      { tool: 'Patch', args: { path: 'text/crlf.txt', patches: [{ operation: 'overwrite', newText: 'gone\n' }] } },
    ]).json();
    expect(edit.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    const run = forge(['undo', '--repo', repo.dir, '--session', 'rv', '--json']);
    expect(run.status).toBe(0);
    const out = run.json();
    expect(out).toMatchObject({ reverted: 1, paths: ['text/crlf.txt'] });
    expect(gitShowBytes(repo.gitdir, out.commit, 'text/crlf.txt').equals(gitShowBytes(repo.gitdir, 'main', 'text/crlf.txt'))).toBe(true);
    const code = (rev: string) => gitLsTree(repo.gitdir, rev).filter((e) => !e.path.startsWith('.forge/'));
    expect(code(out.commit)).toEqual(code('main'));
    expect(git(repo.dir, ['log', '-1', '--format=%s', out.commit]).stdout.trim()).toBe('Undo: Patch text/crlf.txt');
    expect(git(repo.dir, ['rev-parse', 'forge/session/rv']).stdout.trim()).toBe(out.commit);
    expectFsckClean(repo.gitdir);
    // No double undo.
    const again = forge(['undo', '--repo', repo.dir, '--session', 'rv']);
    expect(again.status).toBe(2);
    expect(again.stderr).toBe(`forge: error UNDO_NOTHING_TO_UNDO: ${NO_EDITS_MESSAGE}\n`);
  });

  it('refuses with "hash mismatch" when a person committed a change to the file on the branch', () => {
    const repo = setup();
    turn(repo.dir, [{ tool: 'read_file', args: { path: 'README.md' } }, { tool: 'write_file', args: { path: 'README.md', content: 'agent\n' } }]);
    // A person's commit on the session branch, made with git plumbing.
    const blob = git(repo.dir, ['hash-object', '-w', '--stdin'], { input: 'person\n' }).stdout.trim();
    const index = `${repo.gitdir}/person-index`;
    const env = { GIT_INDEX_FILE: index };
    git(repo.dir, ['read-tree', 'forge/session/rv'], { env });
    git(repo.dir, ['update-index', '--cacheinfo', `100644,${blob},README.md`], { env });
    const tree = git(repo.dir, ['write-tree'], { env }).stdout.trim();
    const commit = git(repo.dir, ['commit-tree', tree, '-p', 'forge/session/rv', '-m', 'person edit']).stdout.trim();
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/rv', commit]);
    const run = forge(['undo', '--repo', repo.dir, '--session', 'rv']);
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/^forge: error UNDO_REFUSED: Undo refused: hash mismatch: README\.md /);
    expect(git(repo.dir, ['rev-parse', 'forge/session/rv']).stdout.trim()).toBe(commit);
  });

  /** A person's commit on the session branch, made with git plumbing (update-index arguments). */
  function personCommit(repo: { dir: string; gitdir: string }, updates: string[][]): string {
    const env = { GIT_INDEX_FILE: `${repo.gitdir}/person-index` };
    git(repo.dir, ['read-tree', 'forge/session/rv'], { env });
    for (const update of updates) git(repo.dir, ['update-index', ...update], { env });
    const tree = git(repo.dir, ['write-tree'], { env }).stdout.trim();
    const commit = git(repo.dir, ['commit-tree', tree, '-p', 'forge/session/rv', '-m', 'person edit']).stdout.trim();
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/rv', commit]);
    return commit;
  }

  /** A refused undo changes nothing: no commit, and no pending journal left behind (issue 14). */
  function expectRefusedCleanly(repo: { dir: string; gitdir: string }, head: string, reason: RegExp): void {
    const run = forge(['undo', '--repo', repo.dir, '--session', 'rv']);
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(reason);
    expect(git(repo.dir, ['rev-parse', 'forge/session/rv']).stdout.trim()).toBe(head);
    expect(existsSync(join(repo.gitdir, 'forge', 'pending', 'rv.jsonl'))).toBe(false);
    expectFsckClean(repo.gitdir);
  }

  it('refuses when a file the edit deleted exists again, leaving no journal behind', () => {
    const repo = setup();
    turn(repo.dir, [{ tool: 'delete_file', args: { path: 'README.md' } }]);
    expect(git(repo.dir, ['cat-file', '-e', 'forge/session/rv:README.md'], { allowFail: true }).status).not.toBe(0);
    const blob = git(repo.dir, ['hash-object', '-w', '--stdin'], { input: 'back\n' }).stdout.trim();
    const head = personCommit(repo, [['--add', '--cacheinfo', `100644,${blob},README.md`]]);
    expectRefusedCleanly(repo, head, /^forge: error UNDO_REFUSED: Undo refused: hash mismatch: README\.md was deleted by the edit and exists again/);
    // The session reads the person's commit, not a stale journal over the old head.
    expect(forge(['cat', '--repo', repo.dir, '--session', 'rv', 'README.md']).stdout).toBe('back\n');
  });

  it('refuses when a file the edit wrote changed mode since, leaving no journal behind', () => {
    const repo = setup();
    turn(repo.dir, [{ tool: 'write_file', args: { path: 'tool.sh', content: 'echo hi\n' } }]);
    const blob = git(repo.dir, ['rev-parse', 'forge/session/rv:tool.sh']).stdout.trim();
    const head = personCommit(repo, [['--add', '--cacheinfo', `100755,${blob},tool.sh`]]);
    expectRefusedCleanly(repo, head, /^forge: error UNDO_REFUSED: Undo refused: hash mismatch: tool\.sh changed mode after the edit \(now 100755\)/);
  });

  it('refuses while the session has uncommitted changes', () => {
    const repo = setup();
    turn(repo.dir, [{ tool: 'write_file', args: { path: 'n.txt', content: 'n\n' } }]);
    const lock = `${repo.gitdir}/refs/heads/forge/session/rv.lock`;
    writeFileSync(lock, '');
    turn(repo.dir, [{ tool: 'write_file', args: { path: 'pending.txt', content: 'p\n' } }]);
    unlinkSync(lock);
    const run = forge(['undo', '--repo', repo.dir, '--session', 'rv']);
    expect(run.status).toBe(3);
    expect(run.stderr).toMatch(/^forge: error SESSION_HAS_PENDING: /);
  });

  it('works after a resume: the entry travels with the session state', () => {
    const repo = setup();
    const t1 = turn(repo.dir, [{ tool: 'write_file', args: { path: 'made.txt', content: 'm\n' } }]).json();
    expect(forge(['resume', '--repo', repo.dir, '--from', t1.commit, '--id', 'rv2']).status).toBe(0);
    const run = forge(['undo', '--repo', repo.dir, '--session', 'rv2', '--json']);
    expect(run.status).toBe(0);
    expect(git(repo.dir, ['cat-file', '-e', `${run.json().commit}:made.txt`], { allowFail: true }).status).not.toBe(0);
    expect(gitShowBytes(repo.gitdir, 'forge/session/rv', 'made.txt').toString()).toBe('m\n');
    expectFsckClean(repo.gitdir);
  });
});
