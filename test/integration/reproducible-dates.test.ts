/**
 * Issue 25, case 4: commits can be made reproducible, as with git. GIT_AUTHOR_DATE and
 * GIT_COMMITTER_DATE (git's date formats) fix the dates of what `forge turn` commits, and the
 * committer's is the command's clock (the session file's times), so the same turn on the same
 * repository gives the same commit oid twice, and the same oid as `git commit-tree` for that tree,
 * parents and message. The date parser is checked against git's own reading of each format.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseGitDate, formatZone } from '../../src/git';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const FORMATS = [
  '@1700000000 +0200',
  '1700000000 -0130',
  '@1700000000 +02:00',
  'Thu, 07 Apr 2005 22:13:13 +0200',
  '07 Apr 2005 22:13:13 -0500',
  'Thu Apr 7 22:13:13 2005 +0200',
  '2005-04-07T22:13:13Z',
  '2005-04-07T22:13:13+02:00',
  '2005-04-07 22:13:13 +0200',
  '2005-04-07T22:13:13.019-0800',
  '2005-4-7T22:13:13Z',
  '2005-04-07 22:13:13+05',
  // No zone: the local zone of that moment (TZ below), as git's mktime gives it.
  '2005-04-07T22:13:13',
  '@1700000000',
  'Thu, 07 Apr 2005 22:13:13',
];

describe('issue 25: GIT_AUTHOR_DATE / GIT_COMMITTER_DATE', () => {
  it("reads git's date formats as git does (git commit-tree is the oracle)", () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const tree = git(repo.dir, ['write-tree']).stdout.trim();
    for (const tz of ['UTC', 'Asia/Kolkata', 'America/New_York']) {
      for (const text of FORMATS) {
        const commit = git(repo.dir, ['commit-tree', tree, '-m', 'x'], { env: { GIT_COMMITTER_DATE: text, TZ: tz } }).stdout.trim();
        const line = git(repo.dir, ['cat-file', 'commit', commit]).stdout.split('\n').find((l) => l.startsWith('committer '))!;
        const expected = line.split(' ').slice(-2).join(' ');
        const previous = process.env.TZ;
        process.env.TZ = tz;
        try {
          const parsed = parseGitDate(text);
          expect(parsed && `${parsed.timestamp} ${formatZone(parsed.timezoneOffset)}`, `${text} in ${tz}`).toBe(expected);
        } finally {
          if (previous === undefined) delete process.env.TZ;
          else process.env.TZ = previous;
        }
      }
    }
    for (const bad of ['garbage', '2005-13-07T22:13:13Z', '']) expect(parseGitDate(bad), bad).toBeNull();
  });

  it('forge turn with both variables gives the same commit twice, and the commit git commit-tree makes of its tree, parents and message', () => {
    const repo = makeRepo({ files: { 'src/a.txt': 'alpha\nbeta\n' } });
    const env = { GIT_AUTHOR_DATE: 'Thu, 07 Apr 2005 22:13:13 +0200', GIT_COMMITTER_DATE: '2005-04-08T09:10:11-05:00', GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.invalid', GIT_COMMITTER_NAME: 'Cy', GIT_COMMITTER_EMAIL: 'cy@example.invalid' };
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'r'], { env }).status).toBe(0);
    const start = git(repo.dir, ['rev-parse', 'forge/session/r']).stdout.trim();
    const calls = join(makeTempDir('dates'), 'calls.json');
    writeFileSync(calls, JSON.stringify([
      { tool: 'read_file', args: { path: 'src/a.txt' } },
      { tool: 'Edit', args: { path: 'src/a.txt', old_snippet: 'beta\n', new_snippet: 'beta, edited\n' } },
      { tool: 'write_file', args: { path: 'src/new.txt', content: 'new\n' } },
    ]));
    const turn = () => {
      const run = forge(['turn', '--repo', repo.dir, '--session', 'r', '--calls', calls, '--json'], { env });
      expect(run.status, run.stderr).toBe(0);
      return run.json<{ commit: string }>().commit;
    };
    const first = turn();
    // The same turn again from the same start.
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/r', start]);
    const second = turn();
    expect(second).toBe(first);
    expectFsckClean(repo.gitdir);

    const raw = git(repo.dir, ['cat-file', 'commit', first]).stdout;
    expect(raw).toContain('\nauthor Ada <ada@example.invalid> 1112904793 +0200\n');
    expect(raw).toContain('\ncommitter Cy <cy@example.invalid> 1112969411 -0500\n');
    const message = raw.slice(raw.indexOf('\n\n') + 2);
    const tree = git(repo.dir, ['rev-parse', `${first}^{tree}`]).stdout.trim();
    const byGit = git(repo.dir, ['commit-tree', tree, '-p', start, '-F', '-'], { env, input: message }).stdout.trim();
    expect(first).toBe(byGit);
  });

  it('a date git does not read is refused before anything is written', () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const run = forge(['session', 'new', '--repo', repo.dir, '--id', 'r'], { env: { GIT_COMMITTER_DATE: 'yesterday-ish' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('INVALID_ARGUMENT');
    expect(run.stderr).toContain('GIT_COMMITTER_DATE');
    expect(git(repo.dir, ['for-each-ref', 'refs/heads/forge']).stdout).toBe('');
  });
});
