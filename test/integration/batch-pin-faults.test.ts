/**
 * Issue 30, 3: a `forge turn` pins its pending blobs once per batch (at its commit), not once
 * per call, because none of its calls is acknowledged before it exits. The condition, checked
 * here: `git gc --prune=now` runs in a loop beside a `forge turn` of 1,000 writes that is
 * SIGKILLed at a random moment; after every kill `git fsck --strict` is clean, the session opens
 * and commits, and what the gc took from the killed batch is dropped on that open with a
 * message naming it (and never committed).
 *
 * Short for CI (FORGE_BATCH_PIN_KILLS kills, default 3); a longer run:
 *   node scripts/fault-batch-pin.mjs [KILLS] [SEED]
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as nodeFs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SessionToolRunner } from '../../src/agent/tool-calls';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { SessionStore } from '../../src/session';
import { allowAll } from '../../src/tools';
import { FORGE_BIN, forge } from '../helpers/forge-cli';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { copyFixture, makeRepo, type RepoHandle } from '../helpers/repos';
import { rng } from '../unit/text/replay/corpus';

const KILLS = Number(process.env.FORGE_BATCH_PIN_KILLS ?? 3);
const SEED = Number(process.env.FORGE_BATCH_PIN_SEED ?? 30);
const WRITES = 1000;

/** `git gc --prune=now` over and over until stopped. */
function gcLoop(repo: RepoHandle): { stop: () => Promise<number> } {
  let stopped = false;
  let runs = 0;
  const once = () =>
    new Promise<void>((resolve) => {
      const gc = spawn('git', ['gc', '-q', '--prune=now'], { cwd: repo.dir, env: hermeticGitEnv(), stdio: 'ignore' });
      gc.on('close', () => resolve());
    });
  const loop = (async () => {
    while (!stopped) {
      await once();
      runs++;
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return runs;
    },
  };
}

/** The journal's pending writes, path -> oid, in the order first journaled (null: no journal). */
function journaledWrites(repo: RepoHandle, session: string): Map<string, string> | null {
  const file = join(repo.gitdir, 'forge', 'pending', `${session}.jsonl`);
  if (!existsSync(file)) return null;
  const out = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
    if (line === '') continue;
    // A tool call's record {c: [changes], state}, or one change {path, oid, mode} (a rewrite).
    let record: { c?: Array<{ path: string; oid?: string }>; path?: string; oid?: string };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      break; // a line torn by the kill: opening drops it and what follows
    }
    for (const change of record.c ?? (record.path ? [record as { path: string; oid?: string }] : [])) {
      if (change.oid) out.set(change.path, change.oid);
      else out.delete(change.path);
    }
  }
  return out;
}

/** Which of these objects the repository has. */
function present(repo: RepoHandle, oids: string[]): Set<string> {
  if (oids.length === 0) return new Set();
  const out = git(repo.dir, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: oids.join('\n') + '\n' }).stdout;
  return new Set(out.split('\n').filter((l) => l.endsWith(' blob')).map((l) => l.slice(0, 40)));
}

function treeOids(repo: RepoHandle, rev: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of git(repo.dir, ['ls-tree', '-r', rev]).stdout.split('\n')) {
    if (line) out.set(line.split('\t')[1]!, line.split('\t')[0]!.split(' ')[2]!);
  }
  return out;
}

describe('issue 30, 3: forge turn pins once per batch; gc --prune=now beside it, killed at random points', () => {
  it(`${KILLS} kills of a ${WRITES}-write forge turn: fsck clean after each, the session opens and commits, what the gc took is named and dropped`, async () => {
    const repo = copyFixture('example-app');
    const id = 'batch';
    expect(forge(['session', 'new', '--repo', repo.dir, '--id', id]).status).toBe(0);
    const random = rng(SEED);
    let droppedTotal = 0;
    for (let round = 0; round < KILLS; round++) {
      const calls = Array.from({ length: WRITES }, (_, k) => ({ tool: 'write_file', args: { path: `batch/r${round}/d${k % 20}/f${k}.txt`, content: `round ${round} file ${k} seed ${SEED}\n`.repeat(1 + (k % 7)) } }));
      const callsFile = join(repo.dir, '..', `calls-${round}.json`);
      writeFileSync(callsFile, JSON.stringify(calls));
      const gc = gcLoop(repo);
      const child = spawn(process.execPath, [FORGE_BIN, 'turn', '--repo', repo.dir, '--session', id, '--calls', callsFile, '--json'], { env: hermeticGitEnv(), stdio: 'ignore' });
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      // Anywhere from its start-up to past its commit (a run that finishes is fine too).
      const delay = 150 + Math.floor(random() * 2500);
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const code = await exited;
      clearTimeout(timer);
      await gc.stop();
      expectFsckClean(repo.gitdir);

      // What the killed batch left: journaled writes, some of whose blobs the gc may have taken.
      const journaled = journaledWrites(repo, id) ?? new Map<string, string>();
      const have = present(repo, [...journaled.values()]);
      const lost = [...journaled].filter(([, oid]) => !have.has(oid)).map(([path]) => path);
      const kept = [...journaled].filter(([, oid]) => have.has(oid));
      droppedTotal += lost.length;

      const after = forge(['turn', '--repo', repo.dir, '--session', id, '--calls', '-', '--json'], { input: JSON.stringify([{ tool: 'write_file', args: { path: `after/r${round}.txt`, content: `after round ${round}\n` } }]) });
      expect(after.status, `round ${round} (killed after ${delay} ms, exit ${code}): ${after.stderr}`).toBe(0);
      if (lost.length > 0) {
        expect(after.stderr).toContain(`${lost.length} pending file(s) were dropped when the session was opened`);
        expect(after.stderr).toContain(lost[0]);
      } else {
        expect(after.stderr).not.toContain('were dropped');
      }
      const tip = JSON.parse(after.stdout).commit as string;
      const tree = treeOids(repo, tip);
      expect(tree.has(`after/r${round}.txt`)).toBe(true);
      for (const path of lost) expect(tree.has(path), path).toBe(false);
      for (const [path, oid] of kept) expect(tree.get(path), path).toBe(oid);
      if (lost.length > 0) expect(git(repo.dir, ['log', '-1', '--format=%B', tip]).stdout).toContain('dropped when the session was opened');
      expect(existsSync(join(repo.gitdir, 'forge', 'pending', `${id}.jsonl`))).toBe(false);
      expectFsckClean(repo.gitdir);
    }
    process.stderr.write(`batch-pin faults: ${KILLS} rounds, ${droppedTotal} pending file(s) taken by the gc and dropped\n`);
  }, 600_000);
});

describe('issue 30, 3: what a batch pins, and when', () => {
  const pinned = (dir: string, id: string): Set<string> => {
    const tip = git(dir, ['rev-parse', '--verify', '--quiet', `refs/forge/pending/${id}`], { allowFail: true }).stdout.trim();
    if (!tip) return new Set();
    return new Set(git(dir, ['ls-tree', '-r', tip]).stdout.split('\n').filter(Boolean).map((l) => { const [fan, name] = l.split('\t')[1]!.split('/'); return fan! + name!; }));
  };
  const blobOf = (dir: string, content: string) => git(dir, ['hash-object', '--stdin'], { input: content }).stdout.trim();

  it('per call without a batch (MCP, forge run); with one, nothing until 8 MiB of blobs, then those at once; a failed commit pins the rest', async () => {
    const repo = makeRepo({ files: { 'a.txt': 'a\n' } });
    const open = async (id: string) => {
      const r = await Repository.open({ fs: nodeFs as unknown as GitFs, dir: repo.dir, platform: nodePlatform });
      const session = await new SessionStore(r).create({ id });
      return { session, runner: new SessionToolRunner(session, { approval: allowAll }) };
    };
    // Acknowledged per call: each write is pinned when its call returns.
    const each = await open('each');
    expect((await each.runner.call({ tool: 'write_file', args: { path: 'one.txt', content: 'one\n' } })).ok).toBe(true);
    expect(pinned(repo.dir, 'each').has(blobOf(repo.dir, 'one\n'))).toBe(true);
    await each.session.close();

    const batch = await open('batch');
    batch.session.pinPerBatch();
    const big = (k: number) => `${k}`.padEnd(1024 * 1024, '.');
    for (let k = 0; k < 7; k++) expect((await batch.runner.call({ tool: 'write_file', args: { path: `big/${k}.txt`, content: big(k) } })).ok).toBe(true);
    expect(pinned(repo.dir, 'batch').size).toBe(0);
    expect((await batch.runner.call({ tool: 'write_file', args: { path: 'big/7.txt', content: big(7) } })).ok).toBe(true);
    const first = pinned(repo.dir, 'batch');
    for (let k = 0; k < 8; k++) expect(first.has(blobOf(repo.dir, big(k))), `big/${k}.txt`).toBe(true);
    expect((await batch.runner.call({ tool: 'write_file', args: { path: 'small.txt', content: 'small\n' } })).ok).toBe(true);
    expect(pinned(repo.dir, 'batch').has(blobOf(repo.dir, 'small\n'))).toBe(false);
    // A commit that fails (the branch checked out) leaves the batch pending: it is pinned then.
    git(repo.dir, ['worktree', 'add', '-q', `${repo.dir}-wt`, 'forge/session/batch']);
    await expect(batch.session.commitTurn()).rejects.toMatchObject({ code: 'BRANCH_CHECKED_OUT' });
    expect(pinned(repo.dir, 'batch').has(blobOf(repo.dir, 'small\n'))).toBe(true);
    git(repo.dir, ['worktree', 'remove', '--force', `${repo.dir}-wt`]);
    const turn = await batch.session.commitTurn();
    expect(git(repo.dir, ['show', `${turn.commit}:small.txt`]).stdout).toBe('small\n');
    expect(pinned(repo.dir, 'batch').size).toBe(0);
    expectFsckClean(repo.gitdir);
  });
});
