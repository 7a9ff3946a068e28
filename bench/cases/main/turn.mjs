/** Turn commits of 1, 10 and 1,000 files: whole `forge turn` process and in-process commitTurn vs bench/git-turn.sh. */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median, sha1 } from '../../bench-kit.mjs';
import { gitTurnInput } from '../../lib/turn-commits.mjs';

export const name = 'turn';
const MiB = 1024;
const pad = (n) => String(n).padStart(2, '0');

/** The new content of every file of a turn: a first line naming the run, then the old content. */
function turnContents(check, set, blobs, tag) {
  const header = `// forge-bench ${tag}\n`;
  const files = set.modified.map((f) => {
    const old = blobs.get(f.oid);
    const text = old.toString('utf8');
    check(Buffer.from(text, 'utf8').equals(old), `${f.path} is not UTF-8 text`);
    return { path: f.path, content: header + text };
  });
  if (set.added) files.push({ path: set.added, content: `${header}export const added = true;\n` });
  return files;
}

export function run(ctx) {
  const { check, measure, forgeCli, inproc, opts, gitdir, work, picks, blobs, turns, mainOid, gitBranches } = ctx;
  const gitTurn = (branch, files) => {
    const dir = gitTurnInput(work, branch, files);
    const r = ctx.timeProcess('bash', [ctx.GIT_TURN, gitdir, branch, dir], { encoding: 'utf8' });
    const commit = r.stdout.trim();
    check(/^[0-9a-f]{40}$/.test(commit), `git-turn.sh printed ${commit}`);
    turns.push({ side: 'git', ref: `refs/heads/${branch}`, commit, parent: mainOid, files: files.map((f) => [f.path, sha1(f.content)]), extra: [] });
    rmSync(dir, { recursive: true, force: true });
    return { ms: r.ms, rssKiB: r.rssKiB };
  };
  const cases = {};
  for (const n of [1, 10, 1000]) {
    const set = picks.turnSets[n];
    const sessionIds = Array.from({ length: opts.runs + 1 }, (_, i) => `bench-p${n}-${i}`);
    const specFile = join(work, `sessions-${n}.json`);
    writeFileSync(specFile, JSON.stringify(sessionIds.map((session) => ({ session, read: set.modified.map((f) => f.path) }))));
    const heads = new Map(inproc(['sessions', gitdir, specFile]).sessions.map((s) => [s.session, s.head]));
    const branches = gitBranches(`p${n}`);
    cases[`turnProcess${n}`] = measure(`turn commit of ${n} file(s) (process)`, opts.runs, {
      forge: (i) => {
        const files = turnContents(check, set, blobs, `F-p-${n}-${pad(i)}`);
        const callsFile = join(work, `calls-${n}-${i}.json`);
        writeFileSync(callsFile, JSON.stringify(files.map((f) => ({ tool: 'write_file', args: { path: f.path, content: f.content } }))));
        const r = forgeCli(['turn', '--repo', gitdir, '--session', sessionIds[i], '--calls', callsFile, '--json']);
        rmSync(callsFile);
        const out = JSON.parse(r.stdout.toString('utf8'));
        check(out.results?.length === files.length && out.results.every((x) => x.ok), `forge turn: a call failed: ${JSON.stringify(out.results?.find((x) => !x.ok) ?? out).slice(0, 500)}`);
        turns.push({ side: 'forge', ref: `refs/heads/forge/session/${sessionIds[i]}`, commit: out.commit, parent: heads.get(sessionIds[i]), files: files.map((f) => [f.path, sha1(f.content)]), extra: [`.forge/sessions/${sessionIds[i]}.json`] });
        return { ms: r.ms, rssKiB: r.rssKiB };
      },
      git: (i) => gitTurn(branches[i], turnContents(check, set, blobs, `G-p-${n}-${pad(i)}`)),
    });
    const inBranches = gitBranches(`i${n}`);
    cases[`turnInproc${n}`] = measure(`turn commit of ${n} file(s) (in-process)`, opts.runs, {
      withNode: false,
      forge: (i) => {
        const files = turnContents(check, set, blobs, `F-i-${n}-${pad(i)}`);
        const spec = join(work, `turn-${n}-${i}.json`);
        const session = `bench-i${n}-${i}`;
        writeFileSync(spec, JSON.stringify({ session, files }));
        const r = inproc(['turn', gitdir, spec]);
        rmSync(spec);
        check(r.changes === files.length, `commitTurn reported ${r.changes} changes for ${files.length} writes`);
        turns.push({ side: 'forge', ref: `refs/heads/forge/session/${session}`, commit: r.commit, parent: r.parent, files: files.map((f) => [f.path, sha1(f.content)]), extra: [`.forge/sessions/${session}.json`] });
        return { ms: r.ms, commitMs: r.commitMs, writeMs: r.writeMs, rssKiB: r.maxRSS };
      },
      git: (i) => gitTurn(inBranches[i], turnContents(check, set, blobs, `G-i-${n}-${pad(i)}`)),
    });
    cases[`turnCommitOnly${n}`] = { forge: median(cases[`turnInproc${n}`].results.forge.map((r) => r.commitMs)), git: null, forgeRss: null, gitRss: null };
  }
  return cases;
}

export function rows() {
  const rss = { text: 'peak RSS < 150 MiB', met: (c) => (c.forgeRss == null ? null : c.forgeRss < 150 * MiB) };
  const list = [];
  for (const n of [1, 10, 1000]) {
    const files = `${n.toLocaleString('en-US')} file${n > 1 ? 's' : ''}`;
    const time = n === 10 ? { text: 'forge ≤ git', met: (c) => c.forge <= c.git } : null;
    list.push({ key: `turnProcess${n}`, label: `turn commit of ${files}, whole \`forge turn\` process vs git plumbing script`, target: time ? { text: `${time.text}; ${rss.text}`, met: (c) => time.met(c) && rss.met(c) } : rss });
    list.push({ key: `turnInproc${n}`, label: `turn commit of ${files}, in-process (writes + commitTurn) vs git plumbing script`, target: n === 10 ? { text: '< 50 ms', met: (c) => c.forge < 50 } : undefined });
    list.push({ key: `turnCommitOnly${n}`, label: `… of which \`commitTurn()\` alone (${files})` });
  }
  return list;
}

export function notes({ turnDepths }) {
  return [
    `- **turn commit of N files**: ${turnDepths}; each file gets a first line naming the side and run (so every run writes new blobs of the same sizes, and forge and git never share objects), the new file a short content. Every run has its own branch, made before the timing.`,
    '  - whole process: `node dist/cli.js turn --repo R --session S --calls FILE --json` with N `write_file` calls. Set-up, untimed: the session is created and one turn records the changed files as read (their hashes, as `read_file` would), since `write_file` may only replace files the session has read.',
    '  - in-process: a fresh process creates the session (untimed), then times `session.vfs.writeFile` for each file + `session.commitTurn()`; the `commitTurn()` part is also shown alone.',
    "  - git: `bench/git-turn.sh`, one process per step: `rev-parse` the branch, `read-tree` its commit into a temporary index (`GIT_INDEX_FILE`), `hash-object -w --stdin-paths` (all blobs), `update-index --index-info`, `write-tree`, `commit-tree -p <parent>`, `update-ref <branch> <new> <parent>`. Its peak RSS is its largest process's. The same git script is the baseline of both forge forms.",
    "  - forge's commit also holds the session's state file (`.forge/sessions/<id>.json`), which for a `forge turn` records that turn's tool calls with their arguments (strings over 4 KiB cut to their first 512 characters); git's commit holds the files only.",
  ];
}
