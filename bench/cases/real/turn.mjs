/** forge turn of 10 and 1,000 write_file calls vs bench/git-turn.sh (hash-object --stdin-paths + plumbing). */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCENARIO } from '../../lib/real-scenario.mjs';
import { blobOid, pad, turnKit } from '../../lib/turn-commits.mjs';

export const name = 'turn';
const MiB = 1024;

export function run(ctx) {
  const { check, measure, forge, runs, work, gitdir, scenario, turns } = ctx;
  const { spread, contentsOf, gitTurnRun, mainBranches } = turnKit(ctx);
  const cases = {};
  for (const n of SCENARIO.turn) {
    const set = spread(n);
    const ids = Array.from({ length: runs + 1 }, (_, i) => `rl-turn${n}-${i}`);
    const spec = join(work, `sessions-${n}.json`);
    writeFileSync(spec, JSON.stringify(ids.map((session) => ({ session, read: set.map((f) => f.path) }))));
    // untimed set-up (bench/inproc.mjs, as scripts/bench.mjs): each session has read the files it will replace
    const heads = new Map(JSON.parse(ctx.run(process.execPath, [ctx.INPROC, 'sessions', gitdir, spec], { env: { ...ctx.ENV, FORGE_BENCH_DIST: ctx.dist } }).trim().split('\n').pop()).sessions.map((s) => [s.session, s.head]));
    const branches = mainBranches(`turn${n}`);
    cases[`turn${n}`] = measure(`turn of ${n} files`, runs, {
      forge: (i) => {
        const files = contentsOf(set, `F-${n}-${pad(i)}`);
        const calls = join(work, `calls-${n}-${i}.json`);
        writeFileSync(calls, JSON.stringify(files.map((f) => ({ tool: 'write_file', args: { path: f.path, content: f.content.toString('utf8') } }))));
        const r = forge(['turn', '--session', ids[i], '--calls', calls, '--json']);
        rmSync(calls);
        const out = JSON.parse(r.stdout.toString('utf8'));
        check(`turn${n}`, out.results?.length === files.length && out.results.every((x) => x.ok), `forge turn: a call failed: ${JSON.stringify(out.results?.find((x) => !x.ok) ?? out).slice(0, 500)}`);
        turns.push({ key: `turn${n}`, side: 'forge', ref: `refs/heads/forge/session/${ids[i]}`, commit: out.commit, parent: heads.get(ids[i]), files: files.map((f) => [f.path, blobOid(f.content)]), extra: [`.forge/sessions/${ids[i]}.json`] });
        return r;
      },
      git: (i) => {
        const files = contentsOf(set, `G-${n}-${pad(i)}`);
        const r = gitTurnRun(branches[i], files, ctx.GIT_TURN);
        rmSync(r.dir, { recursive: true, force: true });
        turns.push({ key: `turn${n}`, side: 'git', ref: `refs/heads/${branches[i]}`, commit: r.stdout.trim(), parent: scenario.main, files: files.map((f) => [f.path, blobOid(f.content)]), extra: [] });
        return r;
      },
    });
  }
  return cases;
}

export function rows() {
  return [
    { key: 'turn10', label: '`forge turn`, 10 files (`write_file`) vs `hash-object --stdin-paths` + plumbing (bench/git-turn.sh)', check: 'turn10', target: { text: '≤ 1x git', met: (c) => c.forge <= c.git } },
    { key: 'turn1000', label: '`forge turn`, 1,000 files (`write_file`) vs `hash-object --stdin-paths` + plumbing (bench/git-turn.sh)', check: 'turn1000', target: { text: '≤ 1x git; peak RSS < 150 MiB', met: (c) => c.forge <= c.git && c.forgeRss != null && c.forgeRss < 150 * MiB } },
  ];
}

export function notes() {
  return ["- **turn of N files**: N files at `main` spread over the sorted path list, each given a first line naming the side and run (no shared objects); forge: `forge turn --calls <file>` with N `write_file` calls on a session that has read them (set up untimed with bench/inproc.mjs, as scripts/bench.mjs); git: bench/git-turn.sh (`read-tree` into a temporary index, `hash-object -w --stdin-paths`, `update-index --index-info`, `write-tree`, `commit-tree`, `update-ref`). Checked for every commit: its branch points at it, its parent, exactly the written paths changed (plus the session file for forge), each to the written bytes' blob oid."];
}
