/**
 * Issue 23 §1: received objects are judged as git's `fsck --strict` judges them. Each hostile
 * object is made with plain git (`hash-object --literally`) and given to both git fsck and
 * object-fsck.ts: the same objects are refused, for the same rule (git's message id).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { fsckGitmodules, fsckObject } from '../../../src/git/object-fsck';
import { git } from '../../helpers/git-cli';
import { writeBlob, writeRawCommit, writeRawTree, type RawEntry } from '../../helpers/hostile-objects';
import { makeTempDir } from '../../helpers/temp';

function scratchRepo(): string {
  const dir = join(makeTempDir('fsck-oracle'), 'r');
  git(makeTempDir('x'), ['init', '-q', dir]);
  return dir;
}

/** git's verdict on each object of the repository: oid -> rule ids it reports (strict). */
function gitVerdicts(dir: string): Map<string, string[]> {
  const result = git(dir, ['fsck', '--strict', '--no-dangling', '--no-progress'], { allowFail: true });
  const out = new Map<string, string[]>();
  for (const line of `${result.stdout}${result.stderr}`.split('\n')) {
    const match = /^(?:error|warning) in (?:tree|commit|tag|blob) ([0-9a-f]{40}): (\w+):/.exec(line);
    if (match) out.set(match[1]!, [...(out.get(match[1]!) ?? []), match[2]!]);
    // An object git cannot even parse has no rule id.
    const unparsed = /^error: ([0-9a-f]{40}): object could not be parsed/.exec(line);
    if (unparsed) out.set(unparsed[1]!, [...(out.get(unparsed[1]!) ?? []), 'unparseable']);
  }
  return out;
}

function readObject(dir: string, oid: string): { type: 'tree' | 'commit' | 'tag' | 'blob'; content: Uint8Array } {
  const type = git(dir, ['cat-file', '-t', oid]).stdout.trim() as 'tree';
  return { type, content: new Uint8Array(git(dir, ['cat-file', type, oid]).stdoutBuffer) };
}

const DOTGIT_SPELLINGS = ['.git', '.GIT', '.Git', '.git ', '.git.', '.git. . ', 'git~1', 'GIT~1', '.g\u200cit', '.\u200dgit', '.gi\ufefft', '.GI\u200eT', '.git::$INDEX_ALLOCATION'];
const BAD_NAMES = ['.', '..', ''];
const FINE_NAMES = ['.github', '.gitx', 'git~2', '..foo', '...', 'git', 'a.git', '.gitignore', 'gitmodules'];

describe('issue 23 §1: tree entries judged as git fsck --strict judges them', () => {
  it('refuses .git in every spelling, ".", "..", an empty name, a slash — as a file and as a directory — and nothing git accepts', () => {
    const dir = scratchRepo();
    const blob = writeBlob(dir, 'echo pwned\n');
    const inner = writeRawTree(dir, [{ mode: '100755', name: 'pre-commit', oid: blob }]);
    const cases: Array<{ label: string; oid: string }> = [];
    for (const name of [...DOTGIT_SPELLINGS, ...BAD_NAMES, ...FINE_NAMES]) {
      cases.push({ label: `file ${JSON.stringify(name)}`, oid: writeRawTree(dir, [{ mode: '100644', name, oid: blob }]) });
      cases.push({ label: `dir ${JSON.stringify(name)}`, oid: writeRawTree(dir, [{ mode: '40000', name, oid: inner }]) });
    }
    cases.push({ label: 'slash in a name', oid: writeRawTree(dir, [{ mode: '100644', name: 'a/b', oid: blob }]) });
    const verdicts = gitVerdicts(dir);
    for (const c of cases) {
      const { type, content } = readObject(dir, c.oid);
      const ours = fsckObject(type, content, c.oid).problem;
      const theirs = verdicts.get(c.oid) ?? [];
      expect({ case: c.label, refused: ours !== null }).toEqual({ case: c.label, refused: theirs.length > 0 });
      if (ours !== null) expect({ case: c.label, rule: theirs }).toEqual({ case: c.label, rule: expect.arrayContaining([ours.rule]) });
    }
    // The spellings are all refused (the oracle agreeing on "fine" alone would prove nothing).
    expect(cases.filter((c) => verdicts.has(c.oid)).length).toBe((DOTGIT_SPELLINGS.length + BAD_NAMES.length) * 2 + 1);
  });

  it('refuses bad and zero-padded modes, duplicates, misordered entries, a null oid, .gitmodules and friends as symlinks', () => {
    const dir = scratchRepo();
    const blob = writeBlob(dir, 'x\n');
    const tree = writeRawTree(dir, [{ mode: '100644', name: 'f', oid: blob }]);
    const trees: Record<string, RawEntry[]> = {
      badFilemode: [{ mode: '100664', name: 'f', oid: blob }],
      badFilemodeOdd: [{ mode: '100600', name: 'f', oid: blob }],
      zeroPadded: [{ mode: '040000', name: 'd', oid: tree }],
      duplicate: [{ mode: '100644', name: 'f', oid: blob }, { mode: '100644', name: 'f', oid: blob }],
      duplicateFileDir: [{ mode: '100644', name: 'f', oid: blob }, { mode: '40000', name: 'f', oid: tree }],
      unsorted: [{ mode: '100644', name: 'b', oid: blob }, { mode: '100644', name: 'a', oid: blob }],
      nullSha1: [{ mode: '100644', name: 'f', oid: '0'.repeat(40) }],
      gitmodulesLink: [{ mode: '120000', name: '.gitmodules', oid: blob }],
      gitmodulesLinkNtfs: [{ mode: '120000', name: 'GITMOD~1', oid: blob }],
      gitmodulesLinkHfs: [{ mode: '120000', name: '.gitmodul\u200ces', oid: blob }],
      gitignoreLink: [{ mode: '120000', name: '.gitignore', oid: blob }],
      gitattributesLink: [{ mode: '120000', name: '.gitattributes', oid: blob }],
      fineLink: [{ mode: '120000', name: 'link', oid: blob }],
      fineTree: [{ mode: '100644', name: 'a', oid: blob }, { mode: '40000', name: 'a.d', oid: tree }, { mode: '100755', name: 'b', oid: blob }],
    };
    const oids = Object.fromEntries(Object.entries(trees).map(([k, v]) => [k, writeRawTree(dir, v)]));
    const verdicts = gitVerdicts(dir);
    for (const [label, oid] of Object.entries(oids)) {
      const { content } = readObject(dir, oid);
      const ours = fsckObject('tree', content, oid).problem;
      const theirs = verdicts.get(oid) ?? [];
      expect({ label, refused: ours !== null }).toEqual({ label, refused: theirs.length > 0 });
      if (ours !== null) expect({ label, rules: theirs }).toEqual({ label, rules: expect.arrayContaining([ours.rule]) });
    }
    expect(fsckObject('tree', readObject(dir, oids.fineTree!).content, oids.fineTree!).links).toHaveLength(3);
  });

  it('refuses malformed commits and tags as git does', () => {
    const dir = scratchRepo();
    const tree = writeRawTree(dir, []);
    const ident = 'A U Thor <a@example.com> 1700000000 +0000';
    const commits: Record<string, string> = {
      fine: `tree ${tree}\nauthor ${ident}\ncommitter ${ident}\n\nmsg\n`,
      missingTree: `author ${ident}\ncommitter ${ident}\n\nmsg\n`,
      badParent: `tree ${tree}\nparent 1234\nauthor ${ident}\ncommitter ${ident}\n\nmsg\n`,
      missingAuthor: `tree ${tree}\ncommitter ${ident}\n\nmsg\n`,
      missingCommitter: `tree ${tree}\nauthor ${ident}\n\nmsg\n`,
      badEmail: `tree ${tree}\nauthor A <a@x\ncommitter ${ident}\n\nmsg\n`,
      badTimezone: `tree ${tree}\nauthor A <a@x> 1700000000 +00\ncommitter ${ident}\n\nmsg\n`,
      zeroPaddedDate: `tree ${tree}\nauthor A <a@x> 01700000000 +0000\ncommitter ${ident}\n\nmsg\n`,
      missingEmail: `tree ${tree}\nauthor A 1700000000 +0000\ncommitter ${ident}\n\nmsg\n`,
      multipleAuthors: `tree ${tree}\nauthor ${ident}\nauthor ${ident}\ncommitter ${ident}\n\nmsg\n`,
    };
    const oids = Object.fromEntries(Object.entries(commits).map(([k, v]) => [k, writeRawCommit(dir, v)]));
    const verdicts = gitVerdicts(dir);
    let refused = 0;
    for (const [label, oid] of Object.entries(oids)) {
      const ours = fsckObject('commit', new TextEncoder().encode(commits[label]!), oid).problem;
      const theirs = verdicts.get(oid) ?? [];
      expect({ label, refused: ours !== null }).toEqual({ label, refused: theirs.length > 0 });
      if (ours !== null) {
        refused++;
        if (!theirs.includes('unparseable')) expect({ label, rules: theirs }).toEqual({ label, rules: expect.arrayContaining([ours.rule]) });
      }
    }
    expect(refused).toBe(Object.keys(commits).length - 1);
    const fine = oids.fine!;
    expect(fsckObject('tag', new TextEncoder().encode(`object ${fine}\ntype commit\ntag v1\ntagger ${ident}\n\nm\n`), 't').problem).toBeNull();
    expect(fsckObject('tag', new TextEncoder().encode(`object ${fine}\ntype bogus\ntag v1\n\nm\n`), 't').problem?.rule).toBe('badType');
    expect(fsckObject('tag', new TextEncoder().encode(`type commit\ntag v1\n\nm\n`), 't').problem?.rule).toBe('missingObject');
  });

  it('refuses .gitmodules that name a submodule "../x" or give an option as url or path, as git fsck does', () => {
    const dir = scratchRepo();
    const bodies: Record<string, string> = {
      fine: '[submodule "lib"]\n\tpath = lib\n\turl = https://example.com/lib.git\n',
      gitmodulesName: '[submodule "../../hooks"]\n\tpath = lib\n\turl = https://example.com/lib.git\n',
      gitmodulesUrl: '[submodule "lib"]\n\tpath = lib\n\turl = --upload-pack=touch /tmp/pwned\n',
      gitmodulesPath: '[submodule "lib"]\n\tpath = --foo\n\turl = https://example.com/lib.git\n',
    };
    const blob = Object.fromEntries(Object.entries(bodies).map(([k, v]) => [k, writeBlob(dir, v)]));
    for (const oid of Object.values(blob)) writeRawTree(dir, [{ mode: '100644', name: '.gitmodules', oid }]);
    const verdicts = gitVerdicts(dir);
    for (const [label, oid] of Object.entries(blob)) {
      const mine = fsckGitmodules(new TextEncoder().encode(bodies[label]!), oid);
      expect({ label, rule: mine?.rule ?? null }).toEqual({ label, rule: label === 'fine' ? null : label });
      expect({ label, git: (verdicts.get(oid) ?? [])[0] ?? null }).toEqual({ label, git: label === 'fine' ? null : label });
    }
  });
});
