#!/usr/bin/env node
/**
 * Provenance benchmark (issue 29): a 5,000-line file changed by 500 forge turns (each turn
 * rewrites 10 of its lines and commits the session file, as a turn does), then, whole processes,
 * alternating, medians:
 *
 *   - git blame --porcelain <file>            beside   forge blame <file> --porcelain
 *   - node -e 0 (the runtime's own start, measured in the same run)
 *   - forge blame <file> --json (with every line's session, turn, call and user message)
 *   - forge why <file>:<line>
 *
 * The porcelain of both must be equal (forge's forge-* header lines left out). Prints ONE JSON line.
 *
 *   node bench/blame-bench.mjs [--runs 7] [--turns 500] [--lines 5000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, median, prng, ROOT, run, timeProcess } from './bench-kit.mjs';
import { HERMETIC_ENV } from './git-env.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const RUNS = opt('runs', 7);
const TURNS = opt('turns', 500);
const LINES = opt('lines', 5000);
const CHANGED_PER_TURN = 10;
// forge's code cache of this run's own (HOME is the shared tmpdir, where another checkout's build would replace it).
const CACHE = mkdtempSync(join(tmpdir(), 'forge-blame-bench-cache-'));
const ENV = { ...HERMETIC_ENV, XDG_CACHE_HOME: CACHE, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };

ensureBuilt((m) => process.stderr.write(m + '\n'), (m) => {
  throw new Error(m);
});

function state(turn, messages, call, base) {
  return JSON.stringify({
    version: 2,
    id: 'bench',
    branch: 'forge/session/bench',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: new Date(Date.UTC(2026, 0, 1, 0, turn)).toISOString(),
    base: { ref: 'main', commit: base },
    mode: 'unrestricted',
    turn,
    messages,
    toolCalls: call ? [call] : [],
    activeFiles: [],
    readHashes: {},
    clipboards: {},
    undo: null,
  }, null, 2) + '\n';
}

/** The repository: main with the file, then TURNS session turns on forge/session/bench (git fast-import). */
function build(dir) {
  run('git', ['init', '-q', '-b', 'main', dir], { env: ENV });
  const random = prng(29);
  const lines = Array.from({ length: LINES }, (_, i) => `${'    '.repeat(random.int(0, 3))}statement_${i}(${random.int(0, 999)});`);
  const blob = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  const chunks = [];
  const t0 = 1767225600;
  chunks.push(`commit refs/heads/main\nmark :1\nauthor Person <p@example.com> ${t0} +0000\ncommitter Person <p@example.com> ${t0} +0000\n${blob('the file')}M 100644 inline src/big.js\n${blob(lines.join('\n') + '\n')}`);
  // The session's start commit, then its turns (the base oid is unknown to fast-import: written as main's mark-free placeholder).
  const messages = [];
  let parent = ':1';
  for (let turn = 1; turn <= TURNS; turn++) {
    const changed = [];
    for (let k = 0; k < CHANGED_PER_TURN; k++) {
      const at = random.int(0, lines.length - 1);
      lines[at] = `${lines[at].match(/^ */)[0]}turn_${turn}_edit_${k}(${random.int(0, 999)});`;
      changed.push(lines[at]);
    }
    const user = `turn ${turn}: rework ${changed.length} statements`;
    messages.push({ role: 'user', content: user, turn, at: new Date(Date.UTC(2026, 0, 1, 0, turn)).toISOString() });
    const call = { id: `call_${turn}`, turn, tool: 'Edit', args: { path: 'src/big.js', old_snippet: '…', new_snippet: changed.join('\n') + '\n' }, ok: true, output: 'ok', at: new Date(Date.UTC(2026, 0, 1, 0, turn)).toISOString() };
    const when = t0 + turn * 60;
    chunks.push(
      `commit refs/heads/forge/session/bench\nmark :${turn + 1}\nauthor Bench <bench@example.com> ${when} +0000\ncommitter Bench <bench@example.com> ${when} +0000\n` +
        blob(`${user}\n\nChanged:\n  src/big.js\n\nForge-Session: bench\nForge-Turn: ${turn}`) +
        `from ${parent}\nM 100644 inline src/big.js\n${blob(lines.join('\n') + '\n')}M 100644 inline .forge/sessions/bench.json\n${blob(state(turn, messages, call, '0'.repeat(40)))}`,
    );
    parent = `:${turn + 1}`;
  }
  run('git', ['-C', dir, 'fast-import', '--quiet'], { input: chunks.join(''), env: ENV });
  run('git', ['-C', dir, 'checkout', '-q', 'forge/session/bench'], { env: ENV });
}

const dir = mkdtempSync(join(tmpdir(), 'forge-blame-bench-'));
try {
  build(dir);
  const cli = join(ROOT, 'dist', 'cli.cjs'); // package.json's bin
  const gitPorcelain = run('git', ['-C', dir, 'blame', '--porcelain', 'src/big.js'], { env: ENV });
  const forgePorcelain = run(process.execPath, [cli, '-C', dir, 'blame', 'src/big.js', '--porcelain'], { env: ENV });
  const same = forgePorcelain.split('\n').filter((l) => !l.startsWith('forge-')).join('\n') === gitPorcelain;
  if (!same) throw new Error('forge blame --porcelain differs from git blame --porcelain');
  const cases = {
    node: () => timeProcess(process.execPath, ['-e', '0'], { env: ENV }),
    git: () => timeProcess('git', ['-C', dir, 'blame', '--porcelain', 'src/big.js'], { env: ENV }),
    forgePorcelain: () => timeProcess(process.execPath, [cli, '-C', dir, 'blame', 'src/big.js', '--porcelain'], { env: ENV }),
    forgeJson: () => timeProcess(process.execPath, [cli, '-C', dir, 'blame', 'src/big.js', '--json'], { env: ENV }),
    why: () => timeProcess(process.execPath, [cli, '-C', dir, 'why', 'src/big.js:2500', '--json'], { env: ENV }),
  };
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  const rss = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const f of Object.values(cases)) f(); // warm-up
  for (let r = 0; r < RUNS; r++) {
    for (const [name, f] of Object.entries(cases)) {
      const t = f();
      times[name].push(t.ms);
      if (t.rssKiB !== undefined && t.rssKiB !== null) rss[name].push(t.rssKiB);
    }
  }
  const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(median(v) * 10) / 10]));
  const own = (ms) => ms - med.node;
  const result = {
    bench: 'blame',
    lines: LINES,
    turns: TURNS,
    runs: RUNS,
    porcelainEqual: same,
    medianMs: med,
    peakRssMiB: Object.fromEntries(Object.entries(rss).map(([k, v]) => [k, v.length ? Math.round(median(v) / 1024) : null])),
    ratio: Math.round((med.forgePorcelain / med.git) * 100) / 100,
    ownTimeRatio: Math.round((own(med.forgePorcelain) / med.git) * 100) / 100,
    jsonRatio: Math.round((med.forgeJson / med.git) * 100) / 100,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(CACHE, { recursive: true, force: true });
}
