/**
 * The rebase oracle: generated histories (a base, an upstream branch, a session of a start
 * commit and one to three turns, built by test/unit/branches/histories.ts) in ONE repository;
 * each session rebased by forge, and replayed by git as a `git cherry-pick` chain onto the same
 * upstream in a worktree. Case by case:
 *
 * - the same verdict: forge stops at the commit where git's chain stops (a stricter stop only
 *   where git's rename detection is involved, as documented), or both replay everything;
 * - every replayed commit's tree equals git's, the session's state file aside: forge writes the
 *   commit's own state with `base` set to the new base (checked too).
 *
 * FORGE_REBASE_CASES / FORGE_ORACLE_SEED change the run (defaults 150 cases, seed 20240101).
 */
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { rebaseSession } from '../../src/branches';
import { Repository } from '../../src/git';
import { nodePlatform } from '../../src/git/node/platform';
import { encodeState, readStateAt, withReplaysTrailer, SESSION_STATE_VERSION, type SessionState } from '../../src/session';
import { expectFsckClean } from '../helpers/fsck';
import { git, hermeticGitEnv } from '../helpers/git-cli';
import { cleanupTempDirs, makeTempDir } from '../helpers/temp';
import { applyOp, baseFiles, commitCommand, fileArb, opArb, PATHS, type FileMap, type FileSpec, type Op } from '../unit/branches/histories';

const CASES = Number(process.env.FORGE_REBASE_CASES ?? 150);
const SEED = Number(process.env.FORGE_ORACLE_SEED ?? 20240101);

interface RebaseCase {
  base: Array<[number, FileSpec]>;
  upstream: Op[][];
  turns: Op[][];
}

const caseArb: fc.Arbitrary<RebaseCase> = fc.record({
  base: fc.array(fc.tuple(fc.nat(PATHS.length - 1), fileArb), { minLength: 3, maxLength: 12 }),
  upstream: fc.array(fc.array(opArb, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }),
  turns: fc.array(fc.array(opArb, { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 3 }),
});

function state(id: string, turn: number): SessionState {
  return {
    version: SESSION_STATE_VERSION,
    id,
    branch: `forge/session/${id}`,
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: `2024-01-01T00:0${turn}:00.000Z`,
    base: { ref: 'base', commit: '0'.repeat(40) },
    mode: 'unrestricted',
    turn,
    messages: [{ role: 'user', content: `turn ${turn}`, turn, at: '2024-01-01T00:00:00.000Z' }],
    toolCalls: [],
    activeFiles: [],
    readHashes: {},
    clipboards: {},
    undo: null,
  } as SessionState;
}

function apply(files: FileMap, ops: Op[]): FileMap {
  const next: FileMap = new Map(files);
  for (const op of ops) applyOp(next, op);
  return next;
}

function build(cases: RebaseCase[]): string {
  const gitdir = join(makeTempDir('rebase-oracle'), 'repo.git');
  git(makeTempDir('rebase-oracle-cwd'), ['init', '-q', '--bare', gitdir]);
  const parts: Buffer[] = [];
  let mark = 1;
  cases.forEach((c, i) => {
    const id = `c${i}`;
    const base = baseFiles(c);
    const baseMark = mark++;
    parts.push(...commitCommand(`refs/cases/${i}/base`, base, null, `base ${i}\n`, baseMark));
    let files = base;
    let parent = `:${baseMark}`;
    c.upstream.forEach((ops, k) => {
      files = apply(files, ops);
      const m = mark++;
      parts.push(...commitCommand(`refs/cases/${i}/onto`, files, parent, `upstream ${i}.${k}\n`, m));
      parent = `:${m}`;
    });
    files = base;
    parent = `:${baseMark}`;
    const statePath = `.forge/sessions/${id}.json`;
    [[], ...c.turns].forEach((ops, turn) => {
      files = apply(files, ops);
      const withState: FileMap = new Map(files);
      withState.set(statePath, { content: Buffer.from(encodeState(state(id, turn))).toString('latin1'), mode: '100644' });
      const subject = turn === 0 ? `Start forge session ${id}` : `Turn ${turn} of ${id}`;
      const m = mark++;
      parts.push(...commitCommand(`refs/heads/forge/session/${id}`, withState, parent, `${subject}\n\nForge-Session: ${id}\nForge-Turn: ${turn}\n`, m));
      parent = `:${m}`;
    });
  });
  const result = spawnSync('git', ['fast-import', '--quiet', '--done'], { cwd: gitdir, env: hermeticGitEnv(), input: Buffer.concat([...parts, Buffer.from('done\n')]) });
  if (result.status !== 0) throw new Error(`fast-import failed: ${result.stderr.toString()}`);
  return gitdir;
}

/** path -> "mode oid" of a commit's tree, one path left out. */
async function flatten(repo: Repository, commit: string, skip: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (tree: string, prefix: string) => {
    for (const e of await repo.readTree(tree)) {
      const path = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.mode === '040000') await walk(e.oid, path);
      else if (path !== skip) out[path] = `${e.mode} ${e.oid}`;
    }
  };
  await walk((await repo.readCommit(commit)).tree, '');
  return out;
}

function renamedPaths(gitdir: string, from: string, to: string): string[] {
  const out = git(gitdir, ['diff-tree', '-r', '-M', '--name-status', '-z', from, to]).stdout.split('\0');
  const paths: string[] = [];
  for (let k = 0; k < out.length; k++) {
    if (out[k]!.startsWith('R')) {
      paths.push(out[k + 1]!, out[k + 2]!);
      k += 2;
    }
  }
  return paths;
}

afterAll(() => cleanupTempDirs());

describe('rebase oracle: forge rebase vs a git cherry-pick chain', () => {
  it(`replays ${CASES} generated sessions as git does (seed ${SEED})`, async () => {
    const cases = fc.sample(caseArb, { seed: SEED, numRuns: CASES });
    const gitdir = build(cases);
    const work = join(makeTempDir('rebase-oracle-wt'), 'wt');
    git(gitdir, ['worktree', 'add', '-q', '--detach', work, 'refs/cases/0/base']);
    const repo = await Repository.open({ fs, gitdir, platform: nodePlatform });
    const tally = { cases: cases.length, bothReplayed: 0, bothStopped: 0, stricter: 0, commitsCompared: 0, disagreements: [] as string[] };
    let clock = Date.parse('2024-02-01T00:00:00Z');

    for (let i = 0; i < cases.length; i++) {
      const id = `c${i}`;
      const onto = (await repo.refs.resolve(`refs/cases/${i}/onto`))!;
      const head = (await repo.refs.resolve(`refs/heads/forge/session/${id}`))!;
      const base = (await repo.refs.resolve(`refs/cases/${i}/base`))!;
      const picks = git(gitdir, ['rev-list', '--reverse', `${base}..${head}`]).stdout.trim().split('\n');

      // git: the cherry-pick chain in the worktree.
      git(work, ['checkout', '-q', '-f', '--detach', onto]);
      git(work, ['clean', '-q', '-f', '-d', '-x']);
      const pick = git(work, ['cherry-pick', '--allow-empty', '--keep-redundant-commits', ...picks], { allowFail: true });
      const gitCommits = git(work, ['rev-list', '--reverse', `${onto}..HEAD`]).stdout.trim().split('\n').filter(Boolean);
      if (pick.status !== 0) {
        git(work, ['cherry-pick', '--abort'], { allowFail: true });
        git(work, ['cherry-pick', '--quit'], { allowFail: true });
        git(work, ['reset', '-q', '--hard'], { allowFail: true });
      }
      const gitStoppedAt = pick.status === 0 ? null : gitCommits.length;

      // forge
      const result = await rebaseSession(repo, id, { onto: `refs/cases/${i}/onto`, now: () => new Date((clock += 1000)) });
      const forgeStoppedAt = result.status === 'conflict' ? result.stoppedAt!.index : null;
      const about = () => JSON.stringify({ i, seed: SEED, forge: { status: result.status, stoppedAt: forgeStoppedAt, conflicts: result.conflicts?.map((c) => `${c.kind} ${c.path}`) }, git: { stoppedAt: gitStoppedAt, out: pick.stdout.slice(0, 400) }, case: cases[i] });

      if (forgeStoppedAt === null && gitStoppedAt !== null) tally.disagreements.push(`forge replayed, git stopped: ${about()}`);
      else if (forgeStoppedAt !== null && (gitStoppedAt === null || forgeStoppedAt < gitStoppedAt)) {
        // Stricter than git: only where git paired a rename at that step.
        const step = picks[forgeStoppedAt]!;
        const stepParent = git(gitdir, ['rev-parse', `${step}^`]).stdout.trim();
        const upstreamSide = forgeStoppedAt === 0 ? onto : gitCommits[forgeStoppedAt - 1]!;
        const renamed = [...renamedPaths(gitdir, stepParent, step), ...renamedPaths(gitdir, stepParent, upstreamSide)];
        const related = (path: string) => renamed.some((r) => r === path || r.startsWith(`${path}/`));
        if (result.conflicts!.every((c) => c.kind === 'rename' || related(c.path))) tally.stricter++;
        else tally.disagreements.push(`forge stopped earlier than git: ${about()}`);
      } else if (forgeStoppedAt !== null && forgeStoppedAt > gitStoppedAt!) {
        tally.disagreements.push(`forge went further than git: ${about()}`);
      } else {
        if (forgeStoppedAt === null) tally.bothReplayed++;
        else tally.bothStopped++;
        expect(await repo.refs.resolve(`refs/heads/forge/session/${id}`)).toBe(forgeStoppedAt === null ? result.after : head);
        if (forgeStoppedAt === null) {
          const statePath = `.forge/sessions/${id}.json`;
          expect(result.replayed.length).toBe(gitCommits.length);
          for (const [k, replayed] of result.replayed.entries()) {
            tally.commitsCompared++;
            const mine = await flatten(repo, replayed.to, statePath);
            const theirs = await flatten(repo, gitCommits[k]!, statePath);
            if (JSON.stringify(mine) !== JSON.stringify(theirs)) tally.disagreements.push(`tree of step ${k} differs: ${about()}`);
            const original = await readStateAt(repo, replayed.from, id);
            expect(await readStateAt(repo, replayed.to, id)).toEqual({ ...original, base: { ref: `refs/cases/${i}/onto`, commit: onto } });
            const [a, b] = await Promise.all([repo.readCommit(replayed.from), repo.readCommit(replayed.to)]);
            expect(b.message).toBe(withReplaysTrailer(a.message, replayed.from));
            expect(b.author).toEqual(a.author);
          }
        }
      }
    }
    console.log(`rebase oracle: ${JSON.stringify({ ...tally, disagreements: tally.disagreements.length })}`);
    expect(tally.disagreements.slice(0, 3)).toEqual([]);
    expect(tally.bothReplayed).toBeGreaterThan(CASES / 5);
    expect(tally.bothStopped).toBeGreaterThan(CASES / 10);
    git(gitdir, ['worktree', 'remove', '--force', work]);
    expectFsckClean(gitdir);
  }, 180_000);
});
