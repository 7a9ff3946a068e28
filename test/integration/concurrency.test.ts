/**
 * Two PROCESSES committing turns at the same moment: on two sessions of one repository both
 * succeed; on one session the second writer is refused at its first write (SESSION_BUSY: one
 * writer per session) and the first commits.
 */
import { spawn } from 'node:child_process';
import * as nodeFs from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { Repository, type GitFs } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { SessionStore } from '../../src/session';
import { gitFiles } from '../helpers/engine-assert';
import { diskBackend, type EngineRepo } from '../helpers/engine-repos';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';

const fs: GitFs = nodeFs;
let worker = '';

beforeAll(async () => {
  worker = join(makeTempDir('worker'), 'turn-worker.mjs');
  await build({
    entryPoints: [resolve(__dirname, 'fixtures/turn-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: worker,
    logLevel: 'error',
    // CommonJS dependencies (isomorphic-git) bundled into ESM need a require().
    banner: { js: "import { createRequire as __forgeCreateRequire } from 'node:module'; const require = __forgeCreateRequire(import.meta.url);" },
  });
});

type Outcome = { ok: true; commit: string } | { ok: false; code: string; message: string };

interface Job {
  id: string;
  files: Record<string, string>;
  message: string;
}

/** Starts one worker per job, opens the barrier once all are ready, and returns their outcomes. */
async function race(r: EngineRepo, jobs: Job[]): Promise<Outcome[]> {
  const sync = makeTempDir('barrier');
  const barrier = join(sync, 'go');
  const runs = jobs.map((job, i) => {
    const ready = join(sync, `ready-${i}`);
    const child = spawn(process.execPath, [worker, JSON.stringify({ ...job, dir: r.dir, ready, barrier })], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<Outcome>((resolveRun, reject) => {
      child.on('close', (status) => {
        if (status !== 0) reject(new Error(`worker ${i} exited with ${status}: ${stderr}`));
        else resolveRun(JSON.parse(stdout.trim()) as Outcome);
      });
    });
    return { ready, done };
  });
  const deadline = Date.now() + 20_000;
  while (!runs.every((run) => nodeFs.existsSync(run.ready))) {
    if (Date.now() > deadline) throw new Error('workers never got ready');
    await Promise.race([new Promise((res) => setTimeout(res, 5)), ...runs.map((run) => run.done.then(() => undefined))]);
  }
  nodeFs.writeFileSync(barrier, 'go');
  return Promise.all(runs.map((run) => run.done));
}

async function storeOf(r: EngineRepo): Promise<SessionStore> {
  return new SessionStore(await Repository.open({ fs, dir: r.dir, platform: nodePlatform }));
}

describe('turn commits from two processes at once', () => {
  it('two sessions of one repository: both commit, each branch holds only its own change', async () => {
    const r = await diskBackend.make({ files: { 'README.md': '# shared\n' } });
    const store = await storeOf(r);
    const heads = { left: (await store.create({ id: 'left' })).head, right: (await store.create({ id: 'right' })).head };
    const [left, right] = await race(r, [
      { id: 'left', files: { 'left.txt': 'L\n' }, message: 'left turn' },
      { id: 'right', files: { 'right.txt': 'R\n' }, message: 'right turn' },
    ]);
    expect(left).toMatchObject({ ok: true });
    expect(right).toMatchObject({ ok: true });
    const leftCommit = (left as { commit: string }).commit;
    const rightCommit = (right as { commit: string }).commit;
    expect(git(r.dir, ['rev-parse', 'forge/session/left', 'forge/session/right']).stdout.trim().split('\n')).toEqual([leftCommit, rightCommit]);
    expect(git(r.dir, ['rev-parse', `${leftCommit}^`, `${rightCommit}^`]).stdout.trim().split('\n')).toEqual([heads.left, heads.right]);
    expect(Object.keys(gitFiles(r, leftCommit))).toEqual(['README.md', 'left.txt']);
    expect(Object.keys(gitFiles(r, rightCommit))).toEqual(['README.md', 'right.txt']);
    expect(git(r.dir, ['log', '-1', '--format=%s', leftCommit]).stdout).toBe('left turn\n');
    expect(nodeFs.existsSync(join(r.gitdir, 'forge/pending/left.jsonl'))).toBe(false);
    r.fsck();
  });

  it('two writers on one session: the second is refused at its first write (SESSION_BUSY), the first commits, nothing acknowledged is lost', async () => {
    for (let round = 0; round < 3; round++) {
      const r = await diskBackend.make({ files: { 'README.md': '# shared\n' } });
      const start = (await (await storeOf(r)).create({ id: 'contested' })).head;
      const outcomes = await race(r, [
        { id: 'contested', files: { 'a.txt': 'A\n' }, message: 'writer a' },
        { id: 'contested', files: { 'b.txt': 'B\n' }, message: 'writer b' },
      ]);
      const where = `round ${round}: ${JSON.stringify(outcomes)}`;
      const winners = outcomes.filter((o) => o.ok);
      const losers = outcomes.filter((o): o is Extract<Outcome, { ok: false }> => !o.ok);
      expect(winners, where).toHaveLength(1);
      expect(losers[0]!.code, where).toBe('SESSION_BUSY');
      const winner = winners[0] as { commit: string };
      const [winnerFile, loserFile] = outcomes[0]!.ok ? ['a.txt', 'b.txt'] : ['b.txt', 'a.txt'];
      expect(git(r.dir, ['rev-parse', 'forge/session/contested']).stdout.trim(), where).toBe(winner.commit);
      expect(git(r.dir, ['rev-parse', `${winner.commit}^`]).stdout.trim(), where).toBe(start);
      const committed = Object.keys(gitFiles(r, winner.commit));
      expect(committed, where).toContain(winnerFile);
      // The loser's write was refused, never acknowledged: it is nowhere, and nothing is left pending.
      expect(committed, where).not.toContain(loserFile);
      const reopened = await (await storeOf(r)).open('contested');
      expect(await reopened.vfs.diff(), where).toEqual([]);
      // The winner let the session go when it committed.
      expect(nodeFs.existsSync(join(r.gitdir, 'forge/pending/contested.lease')), where).toBe(false);
      expect(nodeFs.existsSync(join(r.gitdir, 'refs/heads/forge/session/contested.lock')), where).toBe(false);
      r.fsck();
    }
  });
});
