/**
 * `forge turn` with a calls file holding a huge write_file (issue "Safe among others", 7c): the
 * file is read as bytes once and the content kept as its UTF-8 bytes (no JSON text string, no
 * parsed string, no second encoding). Whichever way the calls arrive (a path, standard input
 * redirected from a file, a pipe), git reads back exactly the content JSON.parse gives. The
 * memory target is checked by the benchmark (`npm run bench`), not here.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { copyFixture, gitShowBytes, type RepoHandle } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

// Over the 1 MiB from which a string stays bytes, with every kind of escape and raw UTF-8 in it.
const LINE = 'const s = "quote \\" tab\t é 中 😀 \u0001 \\\\";\r\n';
const CONTENT = LINE.repeat(Math.ceil((3 << 20) / LINE.length));

let repo: RepoHandle;
let callsFile: string;

beforeEach(() => {
  repo = copyFixture('example-app');
  expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'big']).status).toBe(0);
  callsFile = join(makeTempDir('calls'), 'calls.json');
  writeFileSync(callsFile, JSON.stringify([{ tool: 'write_file', args: { path: 'big/huge.txt', content: CONTENT } }, { tool: 'write_file', args: { path: 'small.txt', content: 'small\n' } }], null, 1));
});

function expectCommitted(status: number, stderr: string): void {
  expect(stderr).toBe('');
  expect(status).toBe(0);
  expect(gitShowBytes(repo.gitdir, 'forge/session/big', 'big/huge.txt').equals(Buffer.from(CONTENT, 'utf8'))).toBe(true);
  expect(gitShowBytes(repo.gitdir, 'forge/session/big', 'small.txt').toString()).toBe('small\n');
  const state = JSON.parse(gitShowBytes(repo.gitdir, 'forge/session/big', '.forge/sessions/big.json').toString());
  // The record keeps the content's head and its length in characters, as for any long string.
  expect(state.toolCalls[0].args.content).toBe(`${CONTENT.slice(0, 512)}… [${CONTENT.length - 512} more characters not kept in the session record]`);
  expectFsckClean(repo.gitdir);
}

describe('forge turn: a huge write_file in the calls', () => {
  it('T-12.7: from a path', () => {
    const run = forge(['turn', '--repo', repo.dir, '--session', 'big', '--calls', callsFile, '--json']);
    expectCommitted(run.status, run.stderr);
    expect(run.json().results.map((r: { output: { bytes: number } }) => r.output.bytes)).toEqual([Buffer.byteLength(CONTENT), 6]);
  });

  it('T-12.7: from standard input redirected from a file', () => {
    const fd = openSync(callsFile, 'r');
    try {
      const run = spawnSync(process.execPath, [FORGE_BIN, 'turn', '--repo', repo.dir, '--session', 'big', '--calls', '-'], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', env: { ...hermeticGitEnv(), PATH: process.env.PATH ?? '' } });
      expectCommitted(run.status ?? -1, run.stderr);
    } finally {
      closeSync(fd);
    }
  });

  it('T-12.7: from a pipe', () => {
    const run = forge(['turn', '--repo', repo.dir, '--session', 'big', '--calls', '-'], { input: readFileSync(callsFile, 'utf8') });
    expectCommitted(run.status, run.stderr);
  });

  it('T-12.7: from a pipe of more than 16 MiB (spilled to a temporary file, removed afterwards)', () => {
    const big = LINE.repeat(Math.ceil((20 << 20) / LINE.length));
    writeFileSync(callsFile, JSON.stringify([{ tool: 'write_file', args: { path: 'big/huge.txt', content: big } }]));
    const tmp = makeTempDir('tmpdir');
    const run = forge(['turn', '--repo', repo.dir, '--session', 'big', '--calls', '-'], { input: readFileSync(callsFile, 'utf8'), env: { TMPDIR: tmp } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(gitShowBytes(repo.gitdir, 'forge/session/big', 'big/huge.txt').equals(Buffer.from(big, 'utf8'))).toBe(true);
    expect(readdirSync(tmp)).toEqual([]);
    expectFsckClean(repo.gitdir);
  });

  it('T-12.7: a broken calls file changes nothing and says where', () => {
    writeFileSync(callsFile, `[{"tool": "write_file", "args": {"path": "x", "content": "${'a\\q'.repeat(1 << 19)}"}}]`);
    const head = git(repo.dir, ['rev-parse', 'forge/session/big']).stdout;
    const run = forge(['turn', '--repo', repo.dir, '--session', 'big', '--calls', callsFile]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^forge: error INVALID_ARGUMENT: --calls is not valid JSON: Bad escaped character in JSON at position \d+/);
    expect(git(repo.dir, ['rev-parse', 'forge/session/big']).stdout).toBe(head);
    expect(existsSync(join(repo.gitdir, 'forge', 'pending', 'big.jsonl'))).toBe(false);
  });
});
