/**
 * Issue 27, done-when 3: `forge mount` killed with SIGKILL while a writer writes and closes
 * files. After each kill every file whose close returned is in the session (read back through
 * the next mount), `git fsck --strict` is clean, the stale mount point is cleaned up by the next
 * mount, and mounting again works. `forge mount --unmount` stops a live mount cleanly. CI runs 3
 * kills; `npm run fault:mount [-- KILLS SEED]` (scripts/fault-mount-long.mjs) runs 100 at
 * seeded random moments (FORGE_MOUNT_KILLS, FORGE_MOUNT_SEED).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { describeMount, run } from '../helpers/mount';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';

/** `forge mount` in a child process; resolves once it says the directory is mounted. */
async function startMount(repoDir: string, session: string, dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [FORGE_BIN, 'mount', '--repo', repoDir, session, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('forge mount: session')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`forge mount exited (${code}) before mounting:\n${output}`)));
  });
  return child;
}

const KILLS = Number(process.env.FORGE_MOUNT_KILLS ?? 3);
const SEED = Number(process.env.FORGE_MOUNT_SEED ?? 1);

/** When each round's kill comes (ms after the writer starts): fixed for CI, seeded random for the long run. */
function killTimes(): number[] {
  if (KILLS === 3 && process.env.FORGE_MOUNT_SEED === undefined) return [300, 700, 150];
  let a = SEED >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Array.from({ length: KILLS }, () => 20 + Math.floor(next() * 900));
}

/** Waits until the writer of this round has logged a closed file (at most 60 s). */
async function firstClose(log: string, round: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await fsp.readFile(log, 'utf8').catch(() => '')).includes(`r${round}-1.txt `)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`round ${round}: the writer closed no file in 60 s`);
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

describeMount('forge mount killed with SIGKILL', () => {
  it('every file whose close returned survives a kill -9, the stale mount point is cleaned up, and mounting again works', async () => {
    const repo = makeRepo({ files: { 'README.md': 'crash test\n' } });
    const created = JSON.parse(forge(['session', 'new', '--repo', repo.dir, '--json']).stdout) as { id: string };
    const dir = join(makeTempDir('crash'), 'view');
    await fsp.mkdir(dir);
    const log = join(makeTempDir('crash-log'), 'closed.txt');
    const closed = new Map<string, string>();
    let lastRound = new Map<string, string>();
    for (const [index, killAfterMs] of killTimes().entries()) {
      const round = index + 1;
      // Mounting again works, on the mount point the last kill left stale.
      const mount = await startMount(repo.dir, created.id, dir);
      // What the last round closed before its kill is in the session.
      for (const [name, content] of lastRound) expect(await fsp.readFile(join(dir, name), 'utf8'), `round ${round}: ${name}`).toBe(content);
      lastRound = new Map();
      // Each file is logged only after its close() returned without an error. (A shell's `echo >
      // f` is no writer for this: bash ignores the error of the close that ends a redirection, so
      // a file whose last flush failed because the mount was killed would be logged too.)
      const writeLoop = [
        "const fs = require('node:fs');",
        'const [dir, log, round] = process.argv.slice(1);',
        'for (let i = 1; i <= 100000; i++) {',
        '  const name = `r${round}-${i}.txt`;',
        '  const content = `round ${round} file ${i}`;',
        '  try { fs.writeFileSync(`${dir}/${name}`, content + "\\n"); } catch { process.exit(0); }',
        '  fs.appendFileSync(log, `${name} ${content}\\n`);',
        '}',
      ].join('\n');
      const writer = run(process.execPath, ['-e', writeLoop, dir, log, String(round)]).catch(() => undefined);
      // The kill's delay counts from the round's first close, not from the spawn: on a loaded
      // machine Node's own start can outlast any fixed delay, and a round that closed nothing tests nothing.
      await firstClose(log, round);
      await new Promise((resolve) => setTimeout(resolve, killAfterMs));
      mount.kill('SIGKILL');
      await exited(mount);
      await writer;
      for (const line of (await fsp.readFile(log, 'utf8').catch(() => '')).split('\n')) {
        const space = line.indexOf(' ');
        if (space <= 0) continue;
        const [name, content] = [line.slice(0, space), `${line.slice(space + 1)}\n`];
        if (!closed.has(name)) lastRound.set(name, content);
        closed.set(name, content);
      }
      expectFsckClean(repo.gitdir);
      if (KILLS > 3) process.stderr.write(`kill ${round}/${KILLS} after ${killAfterMs} ms: ${lastRound.size} file(s) closed this round, ${closed.size} in all\n`);
    }
    expect(closed.size).toBeGreaterThan(0);
    // The mount point was left stale by the last kill: the next mount cleans it up.
    const mount = await startMount(repo.dir, created.id, dir);
    for (const [name, content] of closed) expect(await fsp.readFile(join(dir, name), 'utf8'), name).toBe(content);
    const unmount = forge(['mount', '--unmount', dir]);
    expect(unmount.status, unmount.stderr).toBe(0);
    await exited(mount);
    expect(mount.exitCode).toBe(0);
    const turn = forge(['turn', '--repo', repo.dir, '--session', created.id, '--calls', '-'], { input: '[]' });
    expect(turn.status, turn.stderr).toBe(0);
    const tree = git(repo.gitdir, ['ls-tree', '--name-only', `forge/session/${created.id}`]).stdout.split('\n');
    for (const name of closed.keys()) expect(tree, name).toContain(name);
    expectFsckClean(repo.gitdir);
  }, 120_000 + KILLS * 15_000);
});
