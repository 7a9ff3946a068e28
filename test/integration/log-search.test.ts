/**
 * forge log --grep / --author / --since (issue 29): searching every session's conversation,
 * local sessions and fetched ones, one hit per matching turn.
 */
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { expectFsckClean } from '../helpers/fsck';
import { parseSince } from '../../src/cli/commands/history';

function turn(dir: string, session: string, message: string, calls: unknown[], env: Record<string, string> = {}): void {
  const run = forge(['turn', '--repo', dir, '--session', session, '--message', message, '--calls', '-'], { input: JSON.stringify(calls), env });
  expect(run.status, run.stderr).toBe(0);
}

interface Hit {
  session: string;
  ref: string;
  turn: number;
  matches: Array<{ where: string; excerpt: string }>;
}

function search(dir: string, args: string[]): Hit[] {
  const run = forge(['log', ...args, '--repo', dir, '--json']);
  expect(run.status, run.stderr).toBe(0);
  return run.json().hits as Hit[];
}

describe('forge log --grep across sessions', () => {
  it('finds turns by user message, tool call arguments and author, in local and fetched sessions', () => {
    const upstream = makeRepo({ files: { 'a.txt': 'a\n' } });
    expect(forge(['session', 'new', '--repo', upstream.dir, '--id', 'far', '--base', 'main']).status).toBe(0);
    turn(upstream.dir, 'far', 'tune the flux capacitor', [{ tool: 'write_file', args: { path: 'flux.txt', content: '1.21 gigawatts\n' } }]);

    const local = makeRepo({ files: { 'a.txt': 'a\n' } });
    git(local.dir, ['remote', 'add', 'origin', upstream.dir]);
    expect(forge(['session', 'new', '--repo', local.dir, '--id', 'near', '--base', 'main']).status).toBe(0);
    turn(local.dir, 'near', 'rename the widget', [{ tool: 'write_file', args: { path: 'w.txt', content: 'gizmo\n' } }]);
    turn(local.dir, 'near', 'now the docs', [{ tool: 'write_file', args: { path: 'README', content: 'About the GIZMO\n' } }], { GIT_AUTHOR_NAME: 'Ada Lovelace', GIT_AUTHOR_EMAIL: 'ada@example.com' });
    expect(forge(['resume', '--from', 'forge/session/near~1', '--id', 'again', '--repo', local.dir]).status).toBe(0);

    // A user message, in one session; the resumed session's copied turn is not a hit of its own.
    expect(search(local.dir, ['--grep', 'widget']).map((h) => [h.session, h.turn])).toEqual([['near', 1]]);
    // A tool call's arguments, case-insensitively, in two turns.
    const gizmo = search(local.dir, ['--grep', 'gizmo', '-i']);
    expect(gizmo.map((h) => h.turn).sort()).toEqual([1, 2]);
    expect(gizmo.find((h) => h.turn === 2)!.matches.some((m) => m.where === 'call' && m.excerpt.includes('GIZMO'))).toBe(true);
    // --author, alone and with --grep.
    expect(search(local.dir, ['--author', 'Ada']).map((h) => h.turn)).toEqual([2]);
    expect(search(local.dir, ['--author', 'Ada', '--grep', 'widget'])).toEqual([]);
    // A fetched session is searched under its remote-tracking ref (fetched here with git itself).
    git(local.dir, ['fetch', '-q', 'origin', 'refs/heads/forge/session/far:refs/remotes/origin/forge/session/far']);
    const far = search(local.dir, ['--grep', 'flux capacitor']);
    expect(far.map((h) => [h.session, h.ref])).toEqual([['far', 'refs/remotes/origin/forge/session/far']]);
    // --since in the future finds nothing; an invalid pattern is a user error.
    expect(search(local.dir, ['--grep', 'gizmo', '-i', '--since', '2999-01-01'])).toEqual([]);
    expect(forge(['log', '--grep', '(', '--repo', local.dir]).status).toBe(2);
    expect(forge(['log', '--repo', local.dir]).status).toBe(2);
    // The text form names the session, turn and where it matched.
    expect(forge(['log', '--grep', 'widget', '--repo', local.dir]).stdout).toMatch(/near turn 1 .*\n {4}user: rename the widget/);
    expectFsckClean(local.gitdir);
  }, 240_000);

  it('reads --since as git users write it', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    expect(parseSince('@1700000000', now)).toBe(1700000000);
    expect(parseSince('2 days ago', now)).toBe(now.getTime() / 1000 - 2 * 86400);
    expect(parseSince('2026-11-20T00:00:00Z', now)).toBe(Date.parse('2026-11-20T00:00:00Z') / 1000);
    expect(() => parseSince('someday', now)).toThrow(/not a date/);
  });
});
