/**
 * Crash and fault injection (issue "Safe among others"): `forge mcp` servers and `forge turn`
 * runs are SIGKILLed at random moments while `git gc --prune=now` runs beside them. After every
 * kill the repository passes `git fsck --strict` and the session branch is either where it was or
 * one turn further; at the end, after recovery, every acknowledged edit is in the branch.
 *
 * Short for CI (FORGE_FAULT_ROUNDS rounds per seed, default 3, and two seeds); a longer run:
 *   npm run fault:long   (40 rounds x 8 seeds; or: npm run fault:long -- ROUNDS SEEDS)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { copyFixture, gitShowBytes, type RepoHandle } from '../helpers/repos';
import { rng } from '../unit/text/replay/corpus';

const ROUNDS = Number(process.env.FORGE_FAULT_ROUNDS ?? 3);
const SEEDS = (process.env.FORGE_FAULT_SEEDS ?? '7,1234').split(',').map(Number);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A `forge mcp` process driven over raw JSON-RPC lines; remembers which calls were answered ok. */
class RawMcp {
  readonly child: ChildProcess;
  readonly acknowledged = new Map<number, { path: string; content: string }>();
  private readonly sent = new Map<number, { path: string; content: string }>();
  private buffer = '';
  private exited: Promise<void>;
  private markReady: () => void = () => undefined;
  /** Resolves when the server answered `initialize` (its start-up is not what is under test). */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(repo: RepoHandle, session: string) {
    this.child = spawn(process.execPath, [FORGE_BIN, 'mcp', '--repo', repo.dir, '--session', session], { env: hermeticGitEnv(), stdio: ['pipe', 'pipe', 'ignore'] });
    this.exited = new Promise((resolve) => this.child.on('close', () => resolve()));
    this.child.stdout!.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        const message = JSON.parse(line) as { id?: number; result?: { isError?: boolean } };
        if (message.id === 0) this.markReady();
        const write = message.id === undefined ? undefined : this.sent.get(message.id);
        if (write && message.result && !message.result.isError) this.acknowledged.set(message.id!, write);
      }
    });
    this.child.stdin!.on('error', () => undefined);
    this.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fault', version: '1' } } });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  write(id: number, path: string, content: string): void {
    this.sent.set(id, { path, content });
    this.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'write_file', arguments: { path, content } } });
  }

  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  private send(message: unknown): void {
    this.child.stdin!.write(JSON.stringify(message) + '\n');
  }
}

function runGcAsync(repo: RepoHandle): Promise<void> {
  return new Promise((resolve) => {
    const gc = spawn('git', ['gc', '-q', '--prune=now'], { cwd: repo.dir, env: hermeticGitEnv(), stdio: 'ignore' });
    gc.on('close', () => resolve());
  });
}

function tip(repo: RepoHandle, session: string): string {
  return git(repo.dir, ['rev-parse', `refs/heads/forge/session/${session}`]).stdout.trim();
}

/** A turn killed at a random moment: the branch is where it was or exactly one commit further. */
async function killedTurn(repo: RepoHandle, session: string, delayMs: number): Promise<void> {
  const before = tip(repo, session);
  const child = spawn(process.execPath, [FORGE_BIN, 'turn', '--repo', repo.dir, '--session', session, '--calls', '-'], { env: hermeticGitEnv(), stdio: ['pipe', 'ignore', 'ignore'] });
  child.stdin!.end('[]');
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  await sleep(delayMs);
  child.kill('SIGKILL');
  await exited;
  const after = tip(repo, session);
  if (after !== before) expect(git(repo.dir, ['rev-parse', `${after}^`]).stdout.trim()).toBe(before);
}

/** What a user does after a kill left a ref lock: forge names the file; no forge process runs now. */
function removeStaleLocks(repo: RepoHandle, session: string): void {
  const lock = join(repo.gitdir, 'refs', 'heads', 'forge', 'session', `${session}.lock`);
  if (existsSync(lock)) rmSync(lock);
}

describe('fault injection: SIGKILL and git gc --prune=now around forge mcp and forge turn', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: fsck clean after every kill, the ref old or new, every acknowledged edit present after recovery`, async () => {
      // Seeded (mulberry32): a failing run can be replayed from its seed.
      const rand = rng(seed);
      const repo = copyFixture('example-app');
      expect(forge(['session', 'new', '--repo', repo.dir, '--id', 'f']).status).toBe(0);
      const acknowledged = new Map<string, string>();
      let nextId = 1;
      for (let round = 0; round < ROUNDS; round++) {
        const server = new RawMcp(repo, 'f');
        await Promise.race([server.ready, sleep(20_000)]);
        const calls = 3 + Math.floor(rand() * 8);
        for (let i = 0; i < calls; i++) {
          const id = nextId++;
          server.write(id, `f/${seed}-${id}.txt`, `content ${seed} ${id} ${round}\n`);
          if (rand() < 0.3) await sleep(Math.floor(rand() * 40));
        }
        // gc runs while the server works; the kill lands at a random moment.
        const gc = runGcAsync(repo);
        await sleep(Math.floor(rand() * 400));
        await server.kill();
        await gc;
        for (const write of server.acknowledged.values()) acknowledged.set(write.path, write.content);
        expectFsckClean(repo.gitdir);
        removeStaleLocks(repo, 'f');
        if (rand() < 0.5) {
          await killedTurn(repo, 'f', Math.floor(rand() * 400));
          expectFsckClean(repo.gitdir);
          removeStaleLocks(repo, 'f');
        }
      }
      // Recovery: one turn commits whatever is still pending.
      await runGcAsync(repo);
      const last = forge(['turn', '--repo', repo.dir, '--session', 'f', '--calls', '-'], { input: '[]' });
      expect(last.status, last.stderr).toBe(0);
      expectFsckClean(repo.gitdir);
      expect(acknowledged.size).toBeGreaterThan(0);
      const head = tip(repo, 'f');
      for (const [path, content] of acknowledged) expect(gitShowBytes(repo.gitdir, head, path).toString('utf8'), path).toBe(content);
    }, 240_000);
  }
});
