/**
 * The git CLI as the judge of what the engine writes on a real disk repository: tree oids,
 * loose objects, names git refuses, ref names, revisions, repository formats, and the user's
 * working directory and index, which the engine must never touch.
 */
import * as nodeFs from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildTree, isValidRefName, portablePlatform, Repository, serializeTree, type FileChange, type GitFs, type GitPlatform } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { SessionStore } from '../../src/session';
import { CommitVfs, materialize } from '../../src/vfs';
import { codeOf } from '../helpers/engine-assert';
import { bytes, diskBackend } from '../helpers/engine-repos';
import { fsckReport } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { copyFixture, gitShowBytes, makeRepo, snapshotWorkTree } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';
import { INVALID_REF_NAMES, VALID_REF_NAMES } from '../unit/git/ref-name-cases';

const fs: GitFs = nodeFs;
const PLATFORMS: Array<[string, GitPlatform]> = [
  ['node', nodePlatform],
  ['portable', portablePlatform],
];

/** Files whose tree shapes git orders in its own way. */
const TRICKY: Record<string, { content: string; mode: '100644' | '100755' | '120000' }> = {
  'a.c': { content: 'a.c\n', mode: '100644' },
  'a/b.c': { content: 'b\n', mode: '100644' },
  'a-b': { content: 'dash\n', mode: '100644' },
  'a0': { content: 'zero\n', mode: '100644' },
  'a/a.c/deep': { content: 'deep\n', mode: '100644' },
  'docs/naïve café.md': { content: 'nfc\n', mode: '100644' },
  'docs/日本語.md': { content: 'cjk\n', mode: '100644' },
  'docs/🚀 launch.md': { content: 'emoji\n', mode: '100644' },
  'docs/\uFB01le': { content: 'ligature\n', mode: '100644' },
  'run.sh': { content: '#!/bin/sh\n', mode: '100755' },
  'link': { content: 'a.c', mode: '120000' },
  'links/to-dir': { content: '../a', mode: '120000' },
  'crlf.txt': { content: 'one\r\ntwo\r\n', mode: '100644' },
};

function hashObject(gitdir: string, content: string): string {
  return git(gitdir, [`--git-dir=${gitdir}`, 'hash-object', '-w', '--stdin'], { input: content }).stdout.trim();
}

/** The root tree git itself computes from (path, mode, blob) entries, through an index and `git write-tree`. */
function gitWriteTree(gitdir: string, entries: Array<{ path: string; mode: string; oid: string }>): string {
  const index = join(makeTempDir('index'), 'index');
  const env = { GIT_INDEX_FILE: index };
  git(gitdir, [`--git-dir=${gitdir}`, 'update-index', '--add', '--index-info'], { env, input: entries.map((e) => `${e.mode} ${e.oid}\t${e.path}\n`).join('') });
  return git(gitdir, [`--git-dir=${gitdir}`, 'write-tree'], { env }).stdout.trim();
}

/** The root tree built bottom-up with `git mktree`, one directory at a time. */
function gitMktree(gitdir: string, entries: Array<{ path: string; mode: string; oid: string }>): string {
  const build = (prefix: string): string => {
    const lines: string[] = [];
    const subdirs = new Set<string>();
    for (const e of entries) {
      if (!e.path.startsWith(prefix)) continue;
      const rest = e.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      if (slash < 0) lines.push(`${e.mode} blob ${e.oid}\t${rest}`);
      else subdirs.add(rest.slice(0, slash));
    }
    for (const dir of subdirs) lines.push(`040000 tree ${build(`${prefix}${dir}/`)}\t${dir}`);
    return git(gitdir, [`--git-dir=${gitdir}`, 'mktree'], { input: lines.join('\n') + '\n' }).stdout.trim();
  };
  return build('');
}

describe('tree oids equal what git computes for the same entries', () => {
  it('buildTree on an empty base: unicode names, a.c beside a/, executables, symlinks', async () => {
    const r = makeRepo({ files: {}, bare: true });
    const repo = await Repository.open({ fs, gitdir: r.gitdir, platform: nodePlatform });
    const changes: Array<[string, FileChange]> = [];
    const entries: Array<{ path: string; mode: string; oid: string }> = [];
    for (const [path, file] of Object.entries(TRICKY)) {
      const oid = await repo.writeBlob(bytes(file.content));
      expect(oid).toBe(hashObject(r.gitdir, file.content));
      changes.push([path, { oid, mode: file.mode }]);
      entries.push({ path, mode: file.mode, oid });
    }
    const tree = await buildTree(repo, null, changes);
    expect(tree).toBe(gitWriteTree(r.gitdir, entries));
    expect(tree).toBe(gitMktree(r.gitdir, entries));
  });

  it('a session turn over a base commit: the committed tree equals git write-tree of the same files', async () => {
    const r = makeRepo({ files: { 'a/old.txt': 'old\n', 'z.txt': 'z\n' } });
    const store = new SessionStore(await Repository.open({ fs, dir: r.dir, platform: nodePlatform }));
    const s = await store.create({ id: 'oids' });
    for (const [path, file] of Object.entries(TRICKY)) await s.vfs.writeFile(path, bytes(file.content), { mode: file.mode });
    await s.vfs.deleteFile('z.txt');
    const turn = await s.commitTurn();
    const lsTree = git(r.dir, ['ls-tree', '-r', '-z', turn.commit]).stdout.split('\0').filter(Boolean);
    const entries = lsTree.map((line) => {
      const [meta, path] = line.split('\t') as [string, string];
      const [mode, , oid] = meta.split(' ') as [string, string, string];
      return { path, mode, oid };
    });
    expect(entries.map((e) => e.path)).toContain('docs/🚀 launch.md');
    expect(turn.tree).toBe(gitWriteTree(r.gitdir, entries));
    expect(turn.tree).toBe(gitMktree(r.gitdir, entries));
    expect(git(r.dir, ['rev-parse', `${turn.commit}^{tree}`]).stdout.trim()).toBe(turn.tree);
    for (const [path, file] of Object.entries(TRICKY)) {
      expect(Buffer.compare(gitShowBytes(r.gitdir, turn.commit, path), Buffer.from(file.content)), path).toBe(0);
      expect(entries.find((e) => e.path === path)?.mode, path).toBe(file.mode);
    }
  });
});

describe('names git refuses in trees', () => {
  const blobLine = (gitdir: string, mode: string, name: string) => `${mode} blob ${hashObject(gitdir, 'x')}\t${name}\n`;

  it.each([
    ['100644', '.git'],
    ['100644', '.GIT'],
    ['100644', '.git.'],
    ['100644', '.git '],
    ['100644', 'git~1'],
    ['100644', '..'],
    ['120000', '.gitmodules'],
    ['120000', '.gitignore'],
    ['120000', '.gitattributes'],
  ])('mode %s name %j: git fsck --strict flags it, and the engine refuses it (TREE_ENTRY_INVALID)', (mode, name) => {
    const r = makeRepo({ files: {}, bare: true });
    git(r.gitdir, [`--git-dir=${r.gitdir}`, 'mktree'], { input: blobLine(r.gitdir, mode, name) });
    expect(fsckReport(r.gitdir).problems.length).toBeGreaterThan(0);
    expect(() => serializeTree([{ mode: mode as '100644', name, oid: 'a'.repeat(40) }])).toThrow(expect.objectContaining({ code: 'TREE_ENTRY_INVALID' }));
  });

  it.each([['.gitignore'], ['.github'], ['git~2'], ['.git-blame-ignore-revs'], ['a..b']])('the ordinary name %j: git fsck is clean and the engine writes the same tree as git mktree', async (name) => {
    const r = makeRepo({ files: {}, bare: true });
    const tree = git(r.gitdir, [`--git-dir=${r.gitdir}`, 'mktree'], { input: blobLine(r.gitdir, '100644', name) }).stdout.trim();
    expect(fsckReport(r.gitdir).problems).toEqual([]);
    const repo = await Repository.open({ fs, gitdir: r.gitdir, platform: nodePlatform });
    expect(await repo.writeTree([{ mode: '100644', name, oid: hashObject(r.gitdir, 'x') }])).toBe(tree);
  });

  it('duplicate entries and a file and a directory of one name: git fsck flags them, the engine refuses them', async () => {
    const r = makeRepo({ files: {}, bare: true });
    const blob = hashObject(r.gitdir, 'x');
    const sub = git(r.gitdir, [`--git-dir=${r.gitdir}`, 'mktree'], { input: `100644 blob ${blob}\tinner\n` }).stdout.trim();
    git(r.gitdir, [`--git-dir=${r.gitdir}`, 'mktree'], { input: `100644 blob ${blob}\ta\n100644 blob ${blob}\ta\n` });
    git(r.gitdir, [`--git-dir=${r.gitdir}`, 'mktree'], { input: `100644 blob ${blob}\tb\n040000 tree ${sub}\tb\n` });
    expect(fsckReport(r.gitdir).problems.filter((l) => l.includes('duplicateEntries'))).toHaveLength(2);
    const repo = await Repository.open({ fs, gitdir: r.gitdir, platform: nodePlatform });
    expect(await codeOf(repo.writeTree([{ mode: '100644', name: 'a', oid: blob }, { mode: '100644', name: 'a', oid: blob }]))).toBe('TREE_ENTRY_INVALID');
    expect(await codeOf(repo.writeTree([{ mode: '100644', name: 'b', oid: blob }, { mode: '040000', name: 'b', oid: sub }]))).toBe('TREE_ENTRY_INVALID');
  });

  it('a session refuses to commit a symlink named .gitmodules and the repository stays fsck-clean', async () => {
    const r = makeRepo({ files: { 'x': 'x' } });
    const s = await new SessionStore(await Repository.open({ fs, dir: r.dir, platform: nodePlatform })).create({ id: 'gm' });
    const head = s.head;
    await s.vfs.writeFile('.gitmodules', bytes('/etc/passwd'), { mode: '120000' });
    expect(await codeOf(s.commitTurn())).toBe('TREE_ENTRY_INVALID');
    expect(git(r.dir, ['rev-parse', 'forge/session/gm']).stdout.trim()).toBe(head);
    expect(fsckReport(r.gitdir).problems).toEqual([]);
  });
});

describe('ref names agree with git check-ref-format', () => {
  it.each([...VALID_REF_NAMES, ...INVALID_REF_NAMES].filter((n) => n !== ''))('%j', (name) => {
    const status = git(makeTempDir('crf'), ['check-ref-format', '--allow-onelevel', name], { allowFail: true }).status;
    expect(isValidRefName(name)).toBe(status === 0);
  });
});

describe.each(PLATFORMS)('resolveCommit agrees with git rev-parse (%s platform)', (_name, platform) => {
  it('HEAD, branches, lightweight and annotated tags, abbreviated oids, ~N and ^N', async () => {
    const r = copyFixture('edge-cases');
    git(r.dir, ['tag', 'light', 'HEAD~1']);
    git(r.dir, ['tag', '-a', '-m', 'annotated', 'annotated', 'HEAD~2']);
    git(r.dir, ['branch', 'side', 'HEAD~1']);
    git(r.dir, ['checkout', '-q', '-b', 'merged', 'side']);
    git(r.dir, ['commit', '-q', '--allow-empty', '-m', 'on side']);
    git(r.dir, ['merge', '-q', '--no-ff', '-m', 'merge', 'main']);
    git(r.dir, ['checkout', '-q', 'main']);
    const repo = await Repository.open({ fs, dir: r.dir, platform });
    const revisions = ['HEAD', 'main', 'refs/heads/main', 'heads/main', 'HEAD~1', 'HEAD~2', 'HEAD^', 'main~1^', 'light', 'annotated', 'tags/annotated', 'side', 'merged', 'merged^2', 'merged^1~1', 'merged^2~2', 'merged~1', 'merged^0'];
    for (const rev of [...git(r.dir, ['rev-list', '--all']).stdout.trim().split('\n'), git(r.dir, ['rev-parse', 'annotated']).stdout.trim()]) revisions.push(rev, rev.slice(0, 9));
    for (const rev of revisions) {
      const expected = git(r.dir, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]).stdout.trim();
      expect([rev, await repo.resolveCommit(rev)]).toEqual([rev, expected]);
    }
    expect(await codeOf(repo.resolveCommit('HEAD~3'))).toBe('REF_NOT_FOUND');
    expect(await codeOf(repo.resolveCommit('no-such-branch'))).toBe('REF_NOT_FOUND');
  });
});

describe('repository formats', () => {
  it('refuses a SHA-256 repository (git init --object-format=sha256) with UNSUPPORTED_REPOSITORY_FORMAT', async () => {
    const dir = join(makeTempDir('sha256'), 'repo');
    git(makeTempDir('cwd'), ['init', '-q', '--object-format=sha256', dir]);
    expect(await codeOf(Repository.open({ fs, dir, platform: nodePlatform }))).toBe('UNSUPPORTED_REPOSITORY_FORMAT');
  });
});

describe('objects the engine writes', () => {
  it('are loose zlib files under objects/xx/ that git cat-file reads, and no tmp_obj_* file is ever left', async () => {
    const r = makeRepo({ files: { 'x': 'x' } });
    const repo = await Repository.open({ fs, dir: r.dir, platform: nodePlatform });
    const content = new Uint8Array([0, 1, 2, 255, 13, 10]);
    const oid = await repo.writeBlob(content);
    const path = join(r.gitdir, 'objects', oid.slice(0, 2), oid.slice(2));
    expect(inflateSync(nodeFs.readFileSync(path)).subarray(0, 7).toString()).toBe('blob 6\0');
    expect(git(r.dir, ['cat-file', '-t', oid]).stdout).toBe('blob\n');
    expect(Buffer.compare(git(r.dir, ['cat-file', 'blob', oid]).stdoutBuffer, Buffer.from(content))).toBe(0);
    const s = await new SessionStore(repo).create({ id: 'objs' });
    for (let i = 0; i < 30; i++) await s.vfs.writeFile(`f${i % 7}/g${i}`, bytes(`content ${i}`));
    await s.commitTurn();
    const leftovers = nodeFs.readdirSync(join(r.gitdir, 'objects'), { recursive: true }).map(String).filter((p) => p.includes('tmp_obj_'));
    expect(leftovers).toEqual([]);
    expect(fsckReport(r.gitdir).problems).toEqual([]);
  });
});

describe('the user\'s working directory and index', () => {
  it('are byte-identical before and after a session\'s turns, time travel, resume and materialize', async () => {
    const r = copyFixture('edge-cases');
    nodeFs.writeFileSync(join(r.dir, 'untracked.txt'), 'mine\n');
    nodeFs.writeFileSync(join(r.dir, 'README.md'), 'uncommitted edit\n');
    git(r.dir, ['add', 'README.md']);
    nodeFs.writeFileSync(join(r.dir, 'README.md'), 'another unstaged edit\n');
    const before = snapshotWorkTree(r.dir);
    const headBefore = nodeFs.readFileSync(join(r.gitdir, 'HEAD'), 'utf8');
    const mainBefore = git(r.dir, ['rev-parse', 'main']).stdout;

    const store = new SessionStore(await Repository.open({ fs, dir: r.dir, platform: nodePlatform }));
    const s = await store.create({ id: 'hands-off' });
    await s.recordUserMessage('edit everything');
    await s.vfs.writeFile('README.md', bytes('session edit\n'));
    await s.vfs.writeFile('untracked.txt', bytes('session version\n'));
    await s.vfs.deleteFile('text/crlf.txt');
    await s.vfs.writeFile('bin/run.sh', bytes('#!/bin/sh\necho changed\n'));
    const t1 = await s.commitTurn();
    await s.vfs.writeFile('new/dir/file', bytes('x'));
    await s.commitTurn();
    await store.at(t1.commit);
    const fork = await store.resume({ from: t1.commit, id: 'hands-off-fork' });
    await fork.vfs.writeFile('fork.txt', bytes('f'));
    await fork.commitTurn();
    await materialize(new CommitVfs(s.repo, t1.commit, t1.tree), fs, join(makeTempDir('mat'), 'out'));

    expect(snapshotWorkTree(r.dir)).toBe(before);
    expect(nodeFs.readFileSync(join(r.gitdir, 'HEAD'), 'utf8')).toBe(headBefore);
    expect(git(r.dir, ['rev-parse', 'main']).stdout).toBe(mainBefore);
    expect(git(r.dir, ['status', '--porcelain']).stdout).toBe('MM README.md\n?? untracked.txt\n');
    expect(fsckReport(r.gitdir).problems).toEqual([]);
  });
});

describe('refs the engine shares with git', () => {
  it('a session branch packed by git pack-refs --all still opens and commits by compare-and-swap', async () => {
    const r = await diskBackend.make({ files: { 'x': 'x' } });
    const s = await new SessionStore(await r.open()).create({ id: 'packed' });
    git(r.dir, ['pack-refs', '--all']);
    expect(nodeFs.existsSync(join(r.gitdir, 'refs/heads/forge/session/packed'))).toBe(false);
    const reopened = await new SessionStore(await r.open()).open('packed');
    expect(reopened.head).toBe(s.head);
    await reopened.vfs.writeFile('y', bytes('y'));
    const turn = await reopened.commitTurn();
    expect(git(r.dir, ['rev-parse', 'forge/session/packed']).stdout.trim()).toBe(turn.commit);
    expect(git(r.dir, ['log', '--format=%s', 'forge/session/packed']).stdout.split('\n').slice(0, 2)).toEqual(['Forge turn 1', 'Start forge session packed']);
    r.fsck();
  });

  it('a moved branch (git update-ref): the turn is carried onto the value git wrote and commits after it', async () => {
    const r = await diskBackend.make({ files: { 'x': 'x' } });
    const s = await new SessionStore(await r.open()).create({ id: 'moved' });
    git(r.dir, ['update-ref', 'refs/heads/forge/session/moved', r.head]);
    await s.vfs.writeFile('y', bytes('y'));
    const turn = await s.commitTurn();
    expect(git(r.dir, ['rev-parse', 'forge/session/moved']).stdout.trim()).toBe(turn.commit);
    expect(git(r.dir, ['rev-parse', `${turn.commit}^`]).stdout.trim()).toBe(r.head);
    expect(git(r.dir, ['show', `${turn.commit}:y`]).stdout).toBe('y');
    expect(nodeFs.existsSync(join(r.gitdir, 'refs/heads/forge/session/moved.lock'))).toBe(false);
    r.fsck();
  });
});
