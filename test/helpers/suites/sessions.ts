/**
 * Sessions end to end: isolation, time travel, resume, the turn log, lost compare-and-swap,
 * ref locks and crash recovery through the journal. One suite, run on memfs by
 * test/unit/session and on a real disk repository by test/integration; what the engine
 * committed is read back with the git CLI (a byte copy of the git directory for memfs).
 */
import { describe, expect, it } from 'vitest';
import { SessionStore, type Session } from '../../../src/session';
import { bytes, text, type Backend, type EngineRepo } from '../engine-repos';
import { codeOf, gitFiles } from '../engine-assert';
import { git } from '../git-cli';

const FILES = {
  'README.md': '# project\n',
  'src/app.ts': 'export const app = 1;\r\n',
  'bin/tool': { content: '#!/bin/sh\n', mode: '100755' as const },
};

let clock = Date.parse('2024-06-01T10:00:00Z');
/** A clock that moves one second per call, so every commit has its own time. */
const tick = () => new Date((clock += 1000));

/** Moves a ref behind the engine's back: `git update-ref` on disk, another Repository instance on memfs. */
async function moveRef(r: EngineRepo, ref: string, to: string, from: string): Promise<void> {
  if (r.onDisk) {
    git(r.dir, ['update-ref', ref, to, from]);
    return;
  }
  const other = await r.open();
  await other.refs.update({ ref, newOid: to, expectedOid: from, reflogMessage: 'moved by a test', committer: await other.identity() });
}

async function journalText(r: EngineRepo, id: string): Promise<string | null> {
  return r.fs.promises.readFile(`${r.gitdir}/forge/pending/${id}.jsonl`, 'utf8').catch(() => null);
}

async function snapshot(view: { walk(): Promise<Array<{ path: string; mode: string }>>; readFile(p: string): Promise<Uint8Array> }): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await view.walk()) if (!entry.path.startsWith('.forge/')) out[entry.path] = `${entry.mode} ${Buffer.from(await view.readFile(entry.path)).toString('base64')}`;
  return out;
}

export function sessionSuite(backends: Backend[]): void {
  describe.each(backends)('sessions on $name', (backend) => {
    async function setup(opts: { bare?: boolean } = {}) {
      const r = await backend.make({ files: FILES, bare: opts.bare ?? false });
      const store = new SessionStore(await r.open(), tick);
      /** A store over a NEW Repository instance (what a new process sees). */
      const freshStore = async () => new SessionStore(await r.open(), tick);
      return { r, store, freshStore };
    }

    describe('turn commits', () => {
      it('starts a session as a branch whose first commit holds only the state file on top of the base', async () => {
        const { r, store } = await setup();
        const s = await store.create({ id: 'start' });
        expect(await s.repo.refs.resolve('refs/heads/forge/session/start')).toBe(s.head);
        const commit = await s.repo.readCommit(s.head);
        expect(commit.parents).toEqual([r.head]);
        expect(Object.keys(gitFiles(r, s.head, { withSessionFiles: true }))).toEqual(['.forge/sessions/start.json', 'README.md', 'bin/tool', 'src/app.ts']);
        expect(s.state).toMatchObject({ id: 'start', branch: 'forge/session/start', turn: 0, base: { ref: 'HEAD', commit: r.head } });
        expect(await codeOf(store.create({ id: 'start' }))).toBe('SESSION_EXISTS');
        expect(await codeOf(store.create({ id: '../evil' }))).toBe('INVALID_ARGUMENT');
        r.fsck();
      });

      it('commits one turn atomically: files and state in one commit git reads back byte for byte', async () => {
        const { r, store } = await setup();
        const s = await store.create({ id: 't1' });
        await s.recordUserMessage('Add the docs\nand more details');
        await s.recordMessage({ role: 'assistant', content: 'Done.' });
        await s.vfs.writeFile('docs/naïve café.md', bytes('crlf\r\nline\r\n'));
        await s.vfs.writeFile('docs/🚀.bin', new Uint8Array([0, 0xff, 0x0d, 0x0a, 0x00]));
        await s.vfs.writeFile('bin/tool', bytes('#!/bin/sh\nexit 0\n'));
        await s.vfs.writeFile('run.sh', bytes('#!/bin/sh\n'), { mode: '100755' });
        await s.vfs.writeFile('latest', bytes('README.md'), { mode: '120000' });
        await s.vfs.deleteFile('src/app.ts');
        const turn = await s.commitTurn();
        expect(turn.turn).toBe(1);
        expect(await s.repo.refs.resolve(s.ref)).toBe(turn.commit);
        expect(gitFiles(r, turn.commit)).toEqual({
          'README.md': { mode: '100644', content: '# project\n' },
          'bin/tool': { mode: '100755', content: '#!/bin/sh\nexit 0\n' },
          'docs/naïve café.md': { mode: '100644', content: 'crlf\r\nline\r\n' },
          'docs/🚀.bin': { mode: '100644', content: `base64:${Buffer.from([0, 0xff, 0x0d, 0x0a, 0x00]).toString('base64')}` },
          'latest': { mode: '120000', content: 'README.md' },
          'run.sh': { mode: '100755', content: '#!/bin/sh\n' },
        });
        const state = JSON.parse(gitFiles(r, turn.commit, { withSessionFiles: true })['.forge/sessions/t1.json']!.content);
        expect(state.turn).toBe(1);
        expect(state.messages.map((m: { role: string; content: string; turn: number }) => [m.role, m.content, m.turn])).toEqual([
          ['user', 'Add the docs\nand more details', 1],
          ['assistant', 'Done.', 1],
        ]);
        expect(await s.vfs.diff()).toEqual([]);
        expect(await journalText(r, 't1')).toBeNull();
        r.fsck();
      });

      it('writes the default message (user message subject, changed paths) with Forge-Session / Forge-Turn trailers git parses', async () => {
        const { r, store } = await setup();
        const s = await store.create({ id: 'msg' });
        await s.recordUserMessage('Fix the build\n\nIt is broken.');
        await s.vfs.writeFile('b.txt', bytes('b'));
        await s.vfs.writeFile('a.txt', bytes('a'));
        const turn = await s.commitTurn();
        const gitdir = r.diskGitdir();
        const body = git(gitdir, [`--git-dir=${gitdir}`, 'log', '-1', '--format=%B', turn.commit]).stdout;
        expect(body).toBe('Fix the build\n\nChanged:\n  a.txt\n  b.txt\n\nForge-Session: msg\nForge-Turn: 1\n\n');
        expect(git(gitdir, ['interpret-trailers', '--parse'], { input: body }).stdout).toBe('Forge-Session: msg\nForge-Turn: 1\n');
        // A caller's message and notes keep the trailers.
        await s.vfs.writeFile('c.txt', bytes('c'));
        const second = await s.commitTurn({ message: 'Custom subject', notes: ['Undo of turn 1'] });
        const gitdir2 = r.diskGitdir();
        expect(git(gitdir2, [`--git-dir=${gitdir2}`, 'log', '-1', '--format=%B', second.commit]).stdout).toBe('Custom subject\n\nUndo of turn 1\n\nForge-Session: msg\nForge-Turn: 2\n\n');
        // No user message and no change: a generic subject.
        const third = await s.commitTurn();
        expect(third.message).toBe('Forge turn 3\n\nNo code changes.\n\nForge-Session: msg\nForge-Turn: 3\n');
      });

      it('takes author and committer from the options, else the repo config, else Forge <forge@localhost>', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'who' });
        const who = (commit: string) => {
          const gitdir = r.diskGitdir();
          return git(gitdir, [`--git-dir=${gitdir}`, 'log', '-1', '--format=%an <%ae> %at|%cn <%ce>', commit]).stdout.trim();
        };
        const t1 = await s.commitTurn();
        expect(who(t1.commit)).toMatch(/^Forge <forge@localhost> \d+\|Forge <forge@localhost>$/);
        const t2 = await s.commitTurn({ author: { name: 'Ada', email: 'ada@example.invalid', timestamp: 1_000_000 }, committer: { name: 'Bot', email: 'bot@example.invalid' } });
        expect(who(t2.commit)).toBe('Ada <ada@example.invalid> 1000000|Bot <bot@example.invalid>');
        const config = `${r.gitdir}/config`;
        await r.fs.promises.writeFile(config, (await r.fs.promises.readFile(config, 'utf8')) + '[user]\n\tname = Repo User\n\temail = repo@example.invalid\n');
        const s2 = await (await freshStore()).open('who');
        const t3 = await s2.commitTurn();
        expect(who(t3.commit)).toBe(`Repo User <repo@example.invalid> ${Math.floor((await s2.repo.readCommit(t3.commit)).author.timestamp)}|Repo User <repo@example.invalid>`);
        r.fsck();
      });

      it('appends a reflog line per commit in a non-bare repository (git reflog show)', async () => {
        const { r, store } = await setup();
        const s = await store.create({ id: 'reflog' });
        await s.commitTurn();
        await s.commitTurn();
        const gitdir = r.diskGitdir();
        expect(git(gitdir, [`--git-dir=${gitdir}`, 'reflog', 'show', '--format=%gs', 'forge/session/reflog']).stdout).toBe(
          'forge: turn 2\nforge: turn 1\nforge: Start forge session reflog\n',
        );
      });

      it('works in a bare repository', async () => {
        const { r, store } = await setup({ bare: true });
        const s = await store.create({ id: 'bare' });
        await s.vfs.writeFile('src/new.ts', bytes('new\n'));
        const turn = await s.commitTurn();
        expect(gitFiles(r, turn.commit)['src/new.ts']).toEqual({ mode: '100644', content: 'new\n' });
        r.fsck();
      });

      it('refuses a path git cannot store (.git/...) at commit time with TREE_ENTRY_INVALID, moving nothing', async () => {
        const { r, store } = await setup();
        const s = await store.create({ id: 'dotgit' });
        const head = s.head;
        await s.vfs.writeFile('.git/hooks/post-checkout', bytes('#!/bin/sh\n'));
        await s.vfs.writeFile('ok.txt', bytes('ok'));
        expect(await codeOf(s.commitTurn())).toBe('TREE_ENTRY_INVALID');
        expect(await s.repo.refs.resolve(s.ref)).toBe(head);
        await s.vfs.deleteFile('.git/hooks/post-checkout');
        const turn = await s.commitTurn();
        expect(Object.keys(gitFiles(r, turn.commit))).toContain('ok.txt');
        r.fsck();
      });
    });

    describe('isolation, time travel and resume', () => {
      it('two sessions on one repo never see each other\'s pending or committed changes', async () => {
        const { r, store, freshStore } = await setup();
        const one = await store.create({ id: 'one' });
        const two = await store.create({ id: 'two' });
        await one.vfs.writeFile('README.md', bytes('one was here\n'));
        await one.vfs.writeFile('only-one.txt', bytes('1'));
        await one.recordUserMessage('one speaks');
        expect(text(await two.vfs.readFile('README.md'))).toBe('# project\n');
        expect(await two.vfs.exists('only-one.txt')).toBe(false);
        await two.vfs.deleteFile('src/app.ts');
        const t2 = await two.commitTurn();
        expect(await one.vfs.exists('src/app.ts')).toBe(true);
        const t1 = await one.commitTurn();
        expect(await two.vfs.exists('only-one.txt')).toBe(false);
        expect(Object.keys(gitFiles(r, t1.commit))).toEqual(['README.md', 'bin/tool', 'only-one.txt', 'src/app.ts']);
        expect(Object.keys(gitFiles(r, t2.commit))).toEqual(['README.md', 'bin/tool']);
        expect(gitFiles(r, t2.commit)['README.md']!.content).toBe('# project\n');
        // Reopened in a new process, neither sees the other's pending work or conversation.
        await one.vfs.writeFile('pending-one', bytes('p'));
        const reopenedTwo = await (await freshStore()).open('two');
        expect(await reopenedTwo.vfs.exists('pending-one')).toBe(false);
        expect(reopenedTwo.state.messages).toEqual([]);
        expect((await store.list()).map((x) => [x.id, x.turn])).toEqual([
          ['one', 1],
          ['two', 1],
        ]);
        r.fsck();
      });

      it('store.at(any commit of the branch) gives the code and the conversation exactly as they were', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'tt' });
        const seen: Array<{ commit: string; files: Record<string, string>; messages: string[]; turn: number }> = [];
        const record = async (commit: string) => seen.push({ commit, files: await snapshot(s.vfs), messages: s.state.messages.map((m) => `${m.turn}:${m.role}:${m.content}`), turn: s.state.turn });
        await record(s.head);
        await s.recordUserMessage('first');
        await s.vfs.writeFile('README.md', bytes('v1\n'));
        await s.vfs.writeFile('new/a.txt', bytes('a1'));
        await record((await s.commitTurn()).commit);
        await s.recordUserMessage('second');
        await s.recordMessage({ role: 'assistant', content: 'ok' });
        await s.vfs.deleteFile('new/a.txt');
        await s.vfs.writeFile('bin/tool', bytes('#!/bin/sh\n# v2\n'));
        await record((await s.commitTurn()).commit);
        await s.recordUserMessage('third');
        await s.vfs.writeFile('README.md', bytes('v3\r\n'), { mode: '100755' });
        await record((await s.commitTurn()).commit);

        const reader = await freshStore();
        for (const expected of seen) {
          const at = await reader.at(expected.commit);
          expect(at.id).toBe('tt');
          expect(at.commit).toBe(expected.commit);
          expect(await snapshot(at.view)).toEqual(expected.files);
          expect(at.state.messages.map((m) => `${m.turn}:${m.role}:${m.content}`)).toEqual(expected.messages);
          expect(at.state.turn).toBe(expected.turn);
        }
        // Revisions work too: the branch with ~N, and an abbreviated oid.
        expect((await reader.at('forge/session/tt~2')).commit).toBe(seen[1]!.commit);
        expect((await reader.at(seen[2]!.commit.slice(0, 12))).state.turn).toBe(2);
        expect((await reader.at(seen[2]!.commit)).changes.map((c) => `${c.kind} ${c.path}`)).toEqual(['modified bin/tool', 'deleted new/a.txt']);
        // git agrees with the view at every commit.
        for (const expected of seen) {
          const files = gitFiles(r, expected.commit);
          expect(Object.fromEntries(Object.entries(files).map(([p, f]) => [p, `${f.mode} ${f.content.startsWith('base64:') ? f.content.slice(7) : Buffer.from(f.content).toString('base64')}`]))).toEqual(expected.files);
        }
        expect(await codeOf(reader.at(r.head))).toBe('COMMIT_NOT_IN_SESSION');
      });

      it('resumes from a historical commit into a NEW session (new id and branch, parent recorded); the original stays untouched', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'orig' });
        await s.recordUserMessage('turn one');
        await s.vfs.writeFile('f.txt', bytes('1'));
        const t1 = await s.commitTurn();
        await s.recordUserMessage('turn two');
        await s.vfs.writeFile('f.txt', bytes('2'));
        const t2 = await s.commitTurn();
        const origLog = await store.log('orig');

        const reader = await freshStore();
        const resumed = await reader.resume({ from: t1.commit, id: 'fork' });
        expect(resumed.id).toBe('fork');
        expect(resumed.branch).toBe('forge/session/fork');
        expect(resumed.state.parent).toEqual({ session: 'orig', commit: t1.commit, turn: 1 });
        expect(resumed.state.messages.map((m) => m.content)).toEqual(['turn one']);
        expect(text(await resumed.vfs.readFile('f.txt'))).toBe('1');
        expect((await resumed.repo.readCommit(resumed.head)).parents).toEqual([t1.commit]);
        await resumed.recordUserMessage('fork work');
        await resumed.vfs.writeFile('f.txt', bytes('fork'));
        const ft = await resumed.commitTurn();
        expect(ft.turn).toBe(2);

        expect(await s.repo.refs.resolve('refs/heads/forge/session/orig')).toBe(t2.commit);
        expect(await store.log('orig')).toEqual(origLog);
        expect((await store.at(t2.commit)).state.messages.map((m) => m.content)).toEqual(['turn one', 'turn two']);
        expect(gitFiles(r, t2.commit)['f.txt']!.content).toBe('2');
        expect(gitFiles(r, ft.commit)['f.txt']!.content).toBe('fork');
        const forkLog = await store.log('fork');
        expect(forkLog.map((t) => [t.turn, t.summary])).toEqual([
          [1, 'Resume forge session orig at turn 1 as fork'],
          [2, 'fork work'],
        ]);
        expect((await store.list()).find((x) => x.id === 'fork')?.parent).toEqual({ session: 'orig', commit: t1.commit, turn: 1 });
        expect(await codeOf(store.resume({ from: t1.commit, id: 'orig' }))).toBe('SESSION_EXISTS');
        expect(await codeOf(store.resume({ from: r.head, id: 'x' }))).toBe('COMMIT_NOT_IN_SESSION');
        r.fsck();
      });

      it('store.log() lists every turn, oldest first, with its summary and changed paths (state file excluded)', async () => {
        const { store } = await setup();
        const s = await store.create({ id: 'log' });
        await s.recordUserMessage('Edit readme');
        await s.vfs.writeFile('README.md', bytes('x'));
        await s.vfs.writeFile('z/new.txt', bytes('x'));
        const t1 = await s.commitTurn();
        await s.recordUserMessage('Only talk');
        const t2 = await s.commitTurn();
        const log = await store.log('log');
        expect(log.map((t) => ({ turn: t.turn, commit: t.commit, summary: t.summary, changedPaths: t.changedPaths }))).toEqual([
          { turn: 0, commit: (await s.repo.readCommit(t1.commit)).parents[0], summary: 'Start forge session log', changedPaths: [] },
          { turn: 1, commit: t1.commit, summary: 'Edit readme', changedPaths: ['README.md', 'z/new.txt'] },
          { turn: 2, commit: t2.commit, summary: 'Only talk', changedPaths: [] },
        ]);
        expect(log[2]!.time).toBe(new Date((await s.repo.readCommit(t2.commit)).committer.timestamp * 1000).toISOString());
        expect(await codeOf(store.log('missing'))).toBe('SESSION_NOT_FOUND');
      });
    });

    describe('conflicts: lost compare-and-swap and locks', () => {
      it('a branch moved behind the session\'s back: the pending layer is carried onto the new head and committed there, nothing lost', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'cas' });
        const t1 = await s.commitTurn();
        await s.recordUserMessage('keep me');
        await s.vfs.writeFile('mine.txt', bytes('mine'));
        await s.vfs.deleteFile('README.md');
        // Someone moves the branch back to the session's first commit.
        const startCommit = (await s.repo.readCommit(t1.commit)).parents[0]!;
        await moveRef(r, s.ref, startCommit, t1.commit);
        const turn = await s.commitTurn();
        expect((await s.repo.readCommit(turn.commit)).parents).toEqual([startCommit]);
        expect(s.carriedOver?.reapplied.sort()).toEqual(['README.md', 'mine.txt']);
        expect(s.carriedOver?.conflicts).toEqual([]);
        const files = gitFiles(r, turn.commit);
        expect(files['mine.txt']).toEqual({ mode: '100644', content: 'mine' });
        expect(files['README.md']).toBeUndefined();
        const reopened = await (await freshStore()).open('cas');
        expect(reopened.state.messages.map((m) => m.content)).toEqual(['keep me']);
        expect(reopened.state.turn).toBe(1);
        expect(await reopened.vfs.diff()).toEqual([]);
        r.fsck();
      });

      it('a moved branch that changed the same file: the conflicting edit is kept in a rescue commit, the rest is carried, and the next commit works', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'cas2' });
        await s.vfs.writeFile('README.md', bytes('mine\n'));
        await s.vfs.writeFile('other.txt', bytes('other'));
        // Another writer commits a different README.md first.
        const other = await (await freshStore()).open('cas2', { readOnly: true });
        const theirs = await other.repo.writeBlob(bytes('theirs\n'));
        const { buildTree } = await import('../../../src/git');
        const tree = await buildTree(other.repo, other.vfs.baseView.rootTree, [['README.md', { oid: theirs, mode: '100644' }]]);
        const who = await other.repo.identity();
        const moved = await other.repo.writeCommit({ tree, parents: [s.head], author: who, committer: who, message: 'someone else\n\nForge-Session: cas2\nForge-Turn: 1\n' });
        await moveRef(r, s.ref, moved, s.head);
        const error = await s.commitTurn().then(() => null, (e: unknown) => e as { code: string; data: { conflicts: string[]; rescue: { ref: string; commit: string } } });
        expect(error?.code).toBe('REF_CAS_FAILED');
        expect(error?.data.conflicts).toEqual(['README.md']);
        expect(await s.repo.refs.resolve(s.ref)).toBe(moved);
        // The conflicting edit is not lost: the rescue commit holds the whole pending layer.
        expect(gitFiles(r, error!.data.rescue.commit)['README.md']).toEqual({ mode: '100644', content: 'mine\n' });
        expect(await s.repo.refs.resolve(error!.data.rescue.ref)).toBe(error!.data.rescue.commit);
        expect((await s.vfs.diff()).map((c) => c.path)).toEqual(['other.txt']);
        const turn = await s.commitTurn();
        expect(gitFiles(r, turn.commit)['README.md']).toEqual({ mode: '100644', content: 'theirs\n' });
        expect(gitFiles(r, turn.commit)['other.txt']).toEqual({ mode: '100644', content: 'other' });
        r.fsck();
      });

      it('a second Session object on the same id committing first: the other one carries its changes onto that commit and commits after it', async () => {
        const { r, store, freshStore } = await setup();
        await store.create({ id: 'dup' });
        const a = await (await freshStore()).open('dup');
        const b = await (await freshStore()).open('dup');
        await a.vfs.writeFile('from-a.txt', bytes('a'));
        await b.vfs.writeFile('from-b.txt', bytes('b'));
        const won = await b.commitTurn();
        await a.vfs.writeFile('from-a-later.txt', bytes('a2'));
        const after = await a.commitTurn();
        expect((await a.repo.readCommit(after.commit)).parents).toEqual([won.commit]);
        expect(Object.keys(gitFiles(r, after.commit))).toEqual(['README.md', 'bin/tool', 'from-a-later.txt', 'from-a.txt', 'from-b.txt', 'src/app.ts']);
        r.fsck();
      });

      it('a Session object whose journal another object on the same id cleared by committing re-creates it, so a crash loses nothing', async () => {
        const { r, store, freshStore } = await setup();
        await store.create({ id: 'rejournal' });
        const a = await (await freshStore()).open('rejournal');
        const b = await (await freshStore()).open('rejournal');
        await a.vfs.writeFile('from-a.txt', bytes('a'));
        await b.vfs.writeFile('from-b.txt', bytes('b'));
        await b.commitTurn(); // removes the session's journal
        await a.vfs.writeFile('from-a-later.txt', bytes('a2'));
        await a.recordUserMessage('a speaks');
        // a "crashes" here, without trying to commit: reopening carries its journal onto b's commit.
        const reopened = await (await freshStore()).open('rejournal');
        expect((await reopened.vfs.diff()).map((c) => c.path)).toEqual(['from-a-later.txt', 'from-a.txt']);
        expect(reopened.state.messages.map((m) => m.content)).toEqual(['a speaks']);
        const turn = await reopened.commitTurn();
        expect(Object.keys(gitFiles(r, turn.commit))).toContain('from-b.txt');
        r.fsck();
      });

      it('a hand-made <ref>.lock makes the turn fail with REF_LOCKED without touching the ref, the lock or the pending layer', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'locked' });
        const head = s.head;
        await s.vfs.writeFile('x.txt', bytes('x'));
        const lock = `${r.gitdir}/refs/heads/forge/session/locked.lock`;
        await r.fs.promises.writeFile(lock, 'someone else\n');
        expect(await codeOf(s.commitTurn())).toBe('REF_LOCKED');
        expect(await r.fs.promises.readFile(`${r.gitdir}/refs/heads/forge/session/locked`, 'utf8')).toBe(`${head}\n`);
        expect(await r.fs.promises.readFile(lock, 'utf8')).toBe('someone else\n');
        expect((await s.vfs.diff()).map((c) => c.path)).toEqual(['x.txt']);
        expect((await (await freshStore()).open('locked').then((o) => o.vfs.diff())).map((c) => c.path)).toEqual(['x.txt']);
        await r.fs.promises.unlink(lock);
        const turn = await s.commitTurn();
        expect(gitFiles(r, turn.commit)['x.txt']).toEqual({ mode: '100644', content: 'x' });
        r.fsck();
      });
    });

    describe('crash recovery through the journal', () => {
      it('pending writes, deletes and the in-turn state survive dropping the Session and opening it from a NEW Repository', async () => {
        const { r, store, freshStore } = await setup();
        let s: Session | null = await store.create({ id: 'crash' });
        await s.recordUserMessage('please survive');
        await s.recordToolCall({ id: 'c1', tool: 'write_file', args: { path: 'x' }, ok: true });
        await s.vfs.writeFile('new/file.txt', bytes('new\r\n'));
        await s.vfs.writeFile('bin/tool', bytes('#!/bin/sh\n# edited\n'));
        await s.vfs.deleteFile('README.md');
        const expected = await s.vfs.diff();
        s = null; // "crash": nothing committed, nothing cleaned up
        const back = await (await freshStore()).open('crash');
        expect(await back.vfs.diff()).toEqual(expected);
        expect(text(await back.vfs.readFile('new/file.txt'))).toBe('new\r\n');
        expect(await back.vfs.exists('README.md')).toBe(false);
        expect(back.state.messages.map((m) => [m.role, m.content, m.turn])).toEqual([['user', 'please survive', 1]]);
        expect(back.state.toolCalls.map((c) => c.id)).toEqual(['c1']);
        const turn = await back.commitTurn();
        expect(turn.message.split('\n')[0]).toBe('please survive');
        expect(gitFiles(r, turn.commit)).toEqual({
          'bin/tool': { mode: '100755', content: '#!/bin/sh\n# edited\n' },
          'new/file.txt': { mode: '100644', content: 'new\r\n' },
          'src/app.ts': { mode: '100644', content: 'export const app = 1;\r\n' },
        });
        expect(await journalText(r, 'crash')).toBeNull();
        r.fsck();
      });

      it('ignores a torn last journal line', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'torn' });
        await s.vfs.writeFile('kept.txt', bytes('kept'));
        const path = `${r.gitdir}/forge/pending/torn.jsonl`;
        await r.fs.promises.writeFile(path, (await journalText(r, 'torn'))! + '{"path":"lost.txt","oid":"ab');
        const back = await (await freshStore()).open('torn');
        expect((await back.vfs.diff()).map((c) => c.path)).toEqual(['kept.txt']);
        const turn = await back.commitTurn();
        expect(Object.keys(gitFiles(r, turn.commit))).toContain('kept.txt');
      });

      it('a crash after the ref moved but before the journal was cleared does not re-apply the changes', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'late' });
        await s.recordUserMessage('once');
        await s.vfs.writeFile('a.txt', bytes('a'));
        await s.vfs.deleteFile('README.md');
        const journal = await journalText(r, 'late');
        expect(journal).not.toBeNull();
        const t1 = await s.commitTurn();
        // Put the journal back as if the process died right after the compare-and-swap.
        await r.fs.promises.writeFile(`${r.gitdir}/forge/pending/late.jsonl`, journal!);
        const back = await (await freshStore()).open('late');
        expect(back.head).toBe(t1.commit);
        expect(await back.vfs.diff()).toEqual([]);
        expect(back.state.turn).toBe(1);
        expect(back.state.messages.map((m) => m.content)).toEqual(['once']);
        expect(await journalText(r, 'late')).toBeNull();
        const t2 = await back.commitTurn();
        expect((await back.repo.readCommit(t2.commit)).parents).toEqual([t1.commit]);
        expect((await store.log('late')).map((t) => t.changedPaths)).toEqual([[], ['README.md', 'a.txt'], []]);
      });

      it('discardPending() drops the changes and the in-turn conversation, on disk too', async () => {
        const { store, freshStore } = await setup();
        const s = await store.create({ id: 'discard' });
        await s.recordUserMessage('never mind');
        await s.vfs.writeFile('x', bytes('x'));
        await s.discardPending();
        expect(s.state.messages).toEqual([]);
        expect(await s.vfs.diff()).toEqual([]);
        const back = await (await freshStore()).open('discard');
        expect(await back.vfs.diff()).toEqual([]);
        expect(back.state.messages).toEqual([]);
      });

      it('a new session with the id of a deleted one does not inherit its journal', async () => {
        const { r, store, freshStore } = await setup();
        const s = await store.create({ id: 'reborn' });
        await s.vfs.writeFile('old.txt', bytes('old'));
        await r.fs.promises.unlink(`${r.gitdir}/refs/heads/forge/session/reborn`);
        const again = await (await freshStore()).create({ id: 'reborn' });
        expect(await again.vfs.diff()).toEqual([]);
        expect(await journalText(r, 'reborn')).toBeNull();
      });
    });
  });
}
