/**
 * forge blame / forge why through Forge's own history operations (issue 29): sessions merged
 * into main with a merge commit and by fast-forward, a session rebased (Forge-Replays trailer), a
 * session resumed from an older turn, and people's commits between. Every line's commit agrees
 * with git blame; every line a session wrote names its session, turn, call and user message.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { expectFsckClean } from '../helpers/fsck';

function turn(dir: string, session: string, message: string, calls: unknown[]): string {
  const run = forge(['turn', '--repo', dir, '--session', session, '--message', message, '--calls', '-', '--json'], { input: JSON.stringify(calls) });
  expect(run.status, run.stdout).toBe(0);
  return run.json().commit as string;
}

function personCommits(dir: string, file: string, text: string, message: string): void {
  appendFileSync(join(dir, file), text);
  git(dir, ['commit', '-qam', message]);
}

interface BlameLine {
  line: number;
  text: string;
  commit: string;
  session: { session: string; turn: number; replays?: string; call: { tool: string; id: string } | null; userMessage: string | null } | null;
}

function blame(dir: string, path: string, rev = 'HEAD'): BlameLine[] {
  const run = forge(['blame', path, '--repo', dir, '--rev', rev, '--json']);
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  const lines = run.json().lines as BlameLine[];
  // Same commit for every line as git blame, and the porcelain the same once forge's lines are out.
  const gitPorcelain = git(dir, ['blame', '--porcelain', rev, '--', path]).stdout;
  const ours = forge(['blame', path, '--repo', dir, '--rev', rev, '--porcelain']);
  expect(ours.stdout.split('\n').filter((l) => !l.startsWith('forge-')).join('\n')).toBe(gitPorcelain);
  return lines;
}

describe('forge blame through merges, fast-forwards, rebases and resumes', () => {
  it('names the session, turn, call and user message of each line a session wrote, and people for theirs', () => {
    const repo = makeRepo({ files: { 'app.js': 'const a = 1;\nconst b = 2;\n', 'notes.txt': 'n\n' } });
    const dir = repo.dir;
    // Session s1: two turns, then merged into main with a merge commit (main moved meanwhile).
    expect(forge(['session', 'new', '--repo', dir, '--id', 's1', '--base', 'main']).status).toBe(0);
    turn(dir, 's1', 'add a sum function', [{ tool: 'read_file', args: { path: 'app.js' } }, { tool: 'Edit', args: { path: 'app.js', old_snippet: 'const b = 2;\n', new_snippet: 'const b = 2;\nfunction sum(x, y) {\n  return x + y;\n}\n' } }]);
    turn(dir, 's1', 'export it', [
      { tool: 'read_file', args: { path: 'app.js' } },
      { tool: 'Patch', args: { path: 'app.js', patches: [{ operation: 'append_eof', newText: 'module.exports = { sum };\n' }] } },
    ]);
    personCommits(dir, 'notes.txt', 'person\n', 'a person edits notes');
    const merged = forge(['merge', 's1', '--into', 'main', '--repo', dir, '--json']);
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.json().status).toBe('merged');

    let lines = blame(dir, 'app.js');
    expect(lines.map((l) => l.text)).toEqual(['const a = 1;', 'const b = 2;', 'function sum(x, y) {', '  return x + y;', '}', 'module.exports = { sum };']);
    expect(lines[0]!.session).toBeNull();
    expect(lines[2]!.session).toMatchObject({ session: 's1', turn: 1, call: { tool: 'Edit' }, userMessage: 'add a sum function' });
    expect(lines[3]!.session).toMatchObject({ session: 's1', turn: 1, call: { tool: 'Edit' } });
    expect(lines[5]!.session).toMatchObject({ session: 's1', turn: 2, call: { tool: 'Patch' }, userMessage: 'export it' });

    // Session s2 from main: one turn, fast-forwarded with its session file kept.
    expect(forge(['session', 'new', '--repo', dir, '--id', 's2', '--base', 'main']).status).toBe(0);
    turn(dir, 's2', 'add a product', [{ tool: 'write_file', args: { path: 'math.js', content: 'export const mul = (x, y) => x * y;\n' } }]);
    const ff = forge(['merge', 's2', '--into', 'main', '--repo', dir, '--keep-session-files', '--json']);
    expect(ff.json().status).toBe('fast-forward');
    lines = blame(dir, 'math.js');
    expect(lines[0]!.session).toMatchObject({ session: 's2', turn: 1, call: { tool: 'write_file' }, userMessage: 'add a product' });

    // Session s3 made before a person's commit, then rebased onto it: lines follow the replayed turn.
    expect(forge(['session', 'new', '--repo', dir, '--id', 's3', '--base', 'main']).status).toBe(0);
    const original = turn(dir, 's3', 'comment the product', [{ tool: 'read_file', args: { path: 'math.js' } }, { tool: 'Edit', args: { path: 'math.js', old_snippet: 'export const mul', new_snippet: '// multiply\nexport const mul' } }]);
    writeFileSync(join(dir, 'other.txt'), 'x\n');
    git(dir, ['add', 'other.txt']);
    git(dir, ['commit', '-qm', 'a person adds other.txt']);
    const rebased = forge(['rebase', 's3', '--onto', 'main', '--repo', dir, '--json']);
    expect(rebased.status, rebased.stderr).toBe(0);
    lines = blame(dir, 'math.js', 'forge/session/s3');
    expect(lines[0]!.session).toMatchObject({ session: 's3', turn: 1, replays: original, call: { tool: 'Edit' }, userMessage: 'comment the product' });
    expect(lines[0]!.commit).not.toBe(original);
    expect(lines[1]!.session).toMatchObject({ session: 's2', turn: 1 });

    // Resumed from s1's first turn (s4 goes on with turn 2): its new line is s4's, the older lines stay s1's.
    const s1turn1 = forge(['log', 's1', '--repo', dir, '--json']).json().turns[1].commit as string;
    expect(forge(['resume', '--from', s1turn1, '--id', 's4', '--repo', dir]).status).toBe(0);
    turn(dir, 's4', 'double it', [{ tool: 'read_file', args: { path: 'app.js' } }, { tool: 'Edit', args: { path: 'app.js', old_snippet: '  return x + y;\n', new_snippet: '  return 2 * (x + y);\n' } }]);
    lines = blame(dir, 'app.js', 'forge/session/s4');
    expect(lines[2]!.session).toMatchObject({ session: 's1', turn: 1 });
    expect(lines[3]!.session).toMatchObject({ session: 's4', turn: 2, call: { tool: 'Edit' }, userMessage: 'double it' });

    // forge why: the conversation behind one line.
    const why = forge(['why', 'app.js:6', '--repo', dir, '--json']);
    expect(why.status, why.stderr).toBe(0);
    expect(why.json()).toMatchObject({ userMessage: 'export it', call: { tool: 'Patch', ok: true } });
    const text = forge(['why', 'app.js:1', '--repo', dir]);
    expect(text.stdout).toContain('Not written by a forge session turn.');
    expect(forge(['why', 'app.js:99', '--repo', dir]).status).toBe(2);
    expect(forge(['blame', 'missing.js', '--repo', dir]).status).toBe(2);
    expectFsckClean(repo.gitdir);
  }, 240_000);
});
