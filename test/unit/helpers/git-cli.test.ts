import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git } from '../../helpers/git-cli';
import { makeRepo } from '../../helpers/repos';
import { makeTempDir } from '../../helpers/temp';

describe('git()', () => {
  const saved = process.env.GIT_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.GIT_DIR;
    else process.env.GIT_DIR = saved;
  });

  it('uses only the test config: identity, main as default branch, no system config', () => {
    const dir = makeTempDir('git-cli');
    expect(git(dir, ['config', '--global', 'user.name']).stdout).toBe('Forge Test\n');
    expect(git(dir, ['config', '--global', 'init.defaultBranch']).stdout).toBe('main\n');
    const origins = git(dir, ['config', '--list', '--show-origin']).stdout;
    expect(origins).not.toMatch(/\/etc\/gitconfig/);
  });

  it('ignores GIT_* variables of the calling process', () => {
    process.env.GIT_DIR = '/nonexistent/forge';
    const dir = makeTempDir('git-cli');
    git(dir, ['init', '-q']);
    expect(git(dir, ['rev-parse', '--git-dir']).stdout).toBe('.git\n');
  });

  it('passes stdin through and returns stdout as text and bytes', () => {
    const dir = makeTempDir('git-cli');
    const result = git(dir, ['hash-object', '--stdin'], { input: Buffer.from([0, 1, 2, 255]) });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^[0-9a-f]{40}\n$/);
    expect(result.stdoutBuffer.toString('utf8')).toBe(result.stdout);
  });

  it('throws with stderr on failure, or returns the status with allowFail', () => {
    const dir = makeTempDir('git-cli');
    expect(() => git(dir, ['rev-parse', '--verify', 'nope'])).toThrow(/git rev-parse --verify nope failed .*status 128[^]*not a git repository/);
    const result = git(dir, ['rev-parse', '--verify', 'nope'], { allowFail: true });
    expect(result.status).toBe(128);
    expect(result.stderr).toMatch(/not a git repository/);
  });

  it('makes commits with fixed dates, identical to makeRepo for the same content', () => {
    const dir = join(makeTempDir('git-cli'), 'wt');
    mkdirSync(dir);
    git(dir, ['init', '-q']);
    writeFileSync(join(dir, 'a.txt'), 'hello\n');
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'Initial commit']);
    const cliHead = git(dir, ['rev-parse', 'HEAD']).stdout.trim();
    expect(cliHead).toBe(makeRepo({ files: { 'a.txt': 'hello\n' } }).head);
    const later = git(dir, ['commit', '-q', '--allow-empty', '-m', 'later'], {
      env: { GIT_COMMITTER_DATE: '1800000000 +0100' },
    });
    expect(later.status).toBe(0);
    expect(git(dir, ['log', '-1', '--format=%ct %ci']).stdout).toBe('1800000000 2027-01-15 09:00:00 +0100\n');
  });
});
