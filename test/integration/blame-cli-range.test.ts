/**
 * `forge blame -L` and `forge why` from the command line: the range's porcelain is git blame -L's
 * (forge's own forge-* header lines left out), a range git refuses is refused with a typed error,
 * and `node dist/cli.js` (the ES module entry kept beside the bin, dist/cli.cjs) still runs.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';

function history(): string {
  const { dir } = makeRepo({ files: { 'f.txt': 'a\nb\nc\n' } });
  const lines = ['a', 'b', 'c'];
  for (let n = 0; n < 6; n++) {
    lines.splice(1 + n, 0, `added ${n}`);
    if (n % 2 === 1) lines[0] = `a${n}`;
    writeFileSync(join(dir, 'f.txt'), lines.map((l) => `${l}\n`).join(''));
    git(dir, ['commit', '-qam', `step ${n}`]);
  }
  return dir;
}

describe('forge blame -L and forge why', () => {
  const dir = history();

  it('gives git blame -L porcelain for a range, a <start>,+<count> range and a range to the end', () => {
    for (const [ours, theirs] of [['2,4', '2,4'], ['3,+2', '3,+2'], ['7,', '7,']]) {
      const run = forge(['blame', 'f.txt', '-L', ours!, '--porcelain', '--repo', dir]);
      expect(run.stderr).toBe('');
      expect(run.stdout.split('\n').filter((l) => !l.startsWith('forge-')).join('\n')).toBe(git(dir, ['blame', '--porcelain', '-L', theirs!, 'f.txt']).stdout);
    }
  });

  it('refuses a range that starts past the end or before line 1 (INVALID_ARGUMENT, as git refuses it)', () => {
    expect(git(dir, ['blame', '-L', '99,100', 'f.txt'], { allowFail: true }).status).not.toBe(0);
    for (const range of ['99,100', '0,1', '3,2', 'x']) {
      const run = forge(['blame', 'f.txt', '-L', range, '--json', '--repo', dir]);
      expect(run.status).not.toBe(0);
      expect(run.json().error.code).toBe('INVALID_ARGUMENT');
    }
  });

  it('forge why names the commit git blame -L names, and line numbers past the end are refused', () => {
    const expected = git(dir, ['blame', '--porcelain', '-L', '5,5', 'f.txt']).stdout.split(' ');
    const why = forge(['why', 'f.txt:5', '--json', '--repo', dir]).json();
    expect([why.line.commit, String(why.line.sourceLine)]).toEqual([expected[0], expected[1]]);
    const past = forge(['why', 'f.txt:99', '--json', '--repo', dir]);
    expect(past.json().error.code).toBe('INVALID_ARGUMENT');
    expect(past.json().error.message).toContain('has 9 lines');
  });

  it('runs as node dist/cli.js too', () => {
    const run = spawnSync(process.execPath, [resolve('dist/cli.js'), 'why', 'f.txt:1', '--json', '--repo', dir], { encoding: 'utf8', env: hermeticGitEnv() });
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).line.line).toBe(1);
  });
});
