/**
 * Issue 24 §2: approval is a person's act on this machine. The committed
 * `.forge/approved_tools.json` is the audit record; a tool runs only when `forge tools approve`
 * recorded its exact source in the local trust list (`.git/forge/trusted-tools.json`). An
 * approval written by hand and committed with plain git, or arriving by clone/fetch, shows as
 * "approved upstream by X, not trusted here" until a person confirms it; `--sha256` refuses a
 * source that changed after the review.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

const UPPER = `export const description = 'Upper-case a file';
export const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };
export async function execute(vfs, args) {
  const text = await vfs.readFile(args.path);
  await vfs.writeFile(args.path, text.toUpperCase());
  return { ok: true };
}
`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const CALL = JSON.stringify([{ tool: 'upper', args: { path: 'a.txt' } }]);

function ok(run: ReturnType<typeof forge>) {
  if (run.status !== 0) throw new Error(`forge exited ${run.status}: ${run.stderr}\n${run.stdout}`);
  return run;
}

/** A repository whose main holds tools/upper.js and an approvals file written by hand: plain git, no forge. */
function repoWithHandWrittenApproval() {
  const repo = makeRepo({ files: { 'a.txt': 'abc\n', 'tools/upper.js': UPPER } });
  const blob = git(repo.dir, ['rev-parse', 'HEAD:tools/upper.js']).stdout.trim();
  const approvals = { version: 1, tools: { upper: { sha256: sha256(UPPER), blob, approvedBy: 'Mallory <mallory@example.com>', approvedAt: '2026-01-01T00:00:00.000Z' } } };
  mkdirSync(join(repo.dir, '.forge'));
  writeFileSync(join(repo.dir, '.forge/approved_tools.json'), `${JSON.stringify(approvals, null, 2)}\n`);
  git(repo.dir, ['add', '.forge/approved_tools.json']);
  git(repo.dir, ['commit', '-q', '-m', 'Approve upper (by hand)']);
  return repo;
}

function turnWithUpper(dir: string, id: string) {
  ok(forge(['session', 'new', '--repo', dir, '--id', id, '--base', 'main']));
  return forge(['turn', '--repo', dir, '--session', id, '--calls', '-', '--json'], { input: CALL });
}

describe('issue 24 §2: approvals are a person\'s act on this machine', { timeout: 300_000 }, () => {
  it('a tool approved only by a committed file (written with plain git) does not run until approved here', () => {
    const repo = repoWithHandWrittenApproval();
    const hash = sha256(UPPER);

    const refused = turnWithUpper(repo.dir, 's1');
    expect(refused.stdout + refused.stderr).toContain('TOOL_NOT_APPROVED');
    expect(refused.stderr).toContain('approved upstream by Mallory <mallory@example.com>, not trusted here');
    expect(git(repo.dir, ['show', 'forge/session/s1:a.txt']).stdout).toBe('abc\n');

    const list = ok(forge(['tools', 'list', '--repo', repo.dir]));
    expect(list.stdout).toMatch(new RegExp(`upper .*sha256 ${hash}  approved upstream by Mallory <mallory@example.com>, not trusted here`));
    expect(ok(forge(['tools', 'list', '--repo', repo.dir, '--json'])).json().tools.find((t: { name: string }) => t.name === 'upper')).toMatchObject({ state: 'untrusted', sha256: hash });
    const diff = ok(forge(['tools', 'diff', 'upper', '--repo', repo.dir, '--json'])).json();
    // Never trusted here: the person reviews the whole file, not an empty diff.
    expect(diff).toMatchObject({ state: 'untrusted', sha256: hash, base: 'none', approvedBy: 'Mallory <mallory@example.com>' });
    expect(diff.diff).toContain('+export async function execute');

    // A person confirms the upstream approval: recorded here, nothing committed.
    const main = git(repo.dir, ['rev-parse', 'main']).stdout.trim();
    const approved = ok(forge(['tools', 'approve', 'upper', '--repo', repo.dir, '--sha256', hash, '--json'])).json();
    expect(approved).toMatchObject({ commit: null, trusted: true, confirmedUpstream: true, sha256: hash });
    expect(git(repo.dir, ['rev-parse', 'main']).stdout.trim()).toBe(main);
    expect(existsSync(join(repo.gitdir, 'forge', 'trusted-tools.json'))).toBe(true);
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');

    const runs = ok(turnWithUpper(repo.dir, 's2'));
    expect(runs.stderr).not.toContain('not trusted here');
    expect(git(repo.dir, ['show', 'forge/session/s2:a.txt']).stdout).toBe('ABC\n');
    expectFsckClean(repo.gitdir);
  });

  it('an approval that arrives by clone or fetch is not trusted in the other repository', () => {
    const upstream = makeRepo({ files: { 'a.txt': 'abc\n', 'tools/upper.js': UPPER } });
    ok(forge(['tools', 'approve', 'upper', '--repo', upstream.dir]));
    expect(ok(turnWithUpper(upstream.dir, 's1')).status).toBe(0);

    const clone = join(makeTempDir('trust-clone'), 'clone');
    git(upstream.dir, ['clone', '-q', upstream.dir, clone]);
    const refused = turnWithUpper(clone, 's1');
    expect(refused.stdout + refused.stderr).toContain('TOOL_NOT_APPROVED');
    expect(ok(forge(['tools', 'list', '--repo', clone, '--json'])).json().tools.find((t: { name: string }) => t.name === 'upper')).toMatchObject({ state: 'untrusted' });

    // A new version approved upstream and fetched: still not trusted here, and the diff is from what this person trusted.
    ok(forge(['tools', 'approve', 'upper', '--repo', clone, '--sha256', sha256(UPPER)]));
    const v2 = UPPER.replace('Upper-case a file', 'Upper-case a file (v2)');
    writeFileSync(join(upstream.dir, 'tools/upper.js'), v2);
    git(upstream.dir, ['commit', '-qam', 'upper v2']);
    ok(forge(['tools', 'approve', 'upper', '--repo', upstream.dir]));
    git(clone, ['pull', '-q', '--ff-only']);
    const diff = ok(forge(['tools', 'diff', 'upper', '--repo', clone, '--json'])).json();
    expect(diff).toMatchObject({ state: 'untrusted', base: 'trusted-here', sha256: sha256(v2) });
    expect(diff.diff).toContain('+export const description = \'Upper-case a file (v2)\';');
    expect(diff.diff).toContain('-export const description = \'Upper-case a file\';');
    expect(turnWithUpper(clone, 's2').stdout).toContain('TOOL_NOT_APPROVED');
    expectFsckClean(join(clone, '.git'));
  });

  it('forge tools approve --sha256 refuses a source that changed after the review (a turn committed in between)', () => {
    const repo = makeRepo({ files: { 'a.txt': 'abc\n', 'tools/upper.js': UPPER } });
    ok(forge(['session', 'new', '--repo', repo.dir, '--id', 's1', '--base', 'main']));
    const reviewed = ok(forge(['tools', 'diff', 'upper', '--repo', repo.dir, '--session', 's1']));
    expect(reviewed.stdout).toContain(`forge tools approve upper --sha256 ${sha256(UPPER)} --session s1`);
    // The agent's turn lands between the review and the approval.
    const evil = UPPER.replace('text.toUpperCase()', "'pwned'");
    ok(forge(['turn', '--repo', repo.dir, '--session', 's1', '--calls', '-'], { input: JSON.stringify([{ tool: 'read_file', args: { path: 'tools/upper.js' } }, { tool: 'write_file', args: { path: 'tools/upper.js', content: evil } }]) }));
    const head = git(repo.dir, ['rev-parse', 'forge/session/s1']).stdout.trim();

    const refused = forge(['tools', 'approve', 'upper', '--repo', repo.dir, '--session', 's1', '--sha256', sha256(UPPER), '--json']);
    expect(refused.status).toBe(3);
    expect(refused.json().error).toMatchObject({ code: 'TOOL_CHANGED_SINCE_REVIEW', data: { sha256: sha256(evil), expectedSha256: sha256(UPPER) } });
    expect(git(repo.dir, ['rev-parse', 'forge/session/s1']).stdout.trim()).toBe(head);
    expect(existsSync(join(repo.gitdir, 'forge', 'trusted-tools.json'))).toBe(false);
    expect(forge(['tools', 'approve', 'upper', '--repo', repo.dir, '--sha256', 'abc']).status).toBe(2);

    // The hash of what is there now is accepted.
    ok(forge(['tools', 'approve', 'upper', '--repo', repo.dir, '--session', 's1', '--sha256', sha256(evil)]));
    expect(ok(forge(['tools', 'list', '--repo', repo.dir, '--session', 's1', '--json'])).json().tools.find((t: { name: string }) => t.name === 'upper')).toMatchObject({ state: 'approved', sha256: sha256(evil) });
    expectFsckClean(repo.gitdir);
  });
});
