/**
 * write_file of a 100 MB text file (issue 12, 7c): whole `forge turn` process, one row per way the
 * calls file reaches it (a path, standard input redirected, a pipe), against bench/git-turn.sh.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median, prng } from '../../bench-kit.mjs';
import { fmtRss } from '../../lib/format.mjs';

export const name = 'big-write';

const BIG_PATH = 'big/new-100mb.txt';
const BIG_BYTES = 100_000_000;
/** Issue 12, 7c: a 100 MB write_file through `forge turn --calls` peaks under 3x the file in RSS. */
const BIG_RSS_LIMIT = 3 * BIG_BYTES;
/** Runs per side of the big write rows: fewer than the others, each moves 100 MB several times. */
const bigRuns = (opts) => (opts.quick ? 3 : Math.min(opts.runs, 5));
/** A first line naming the side, input form and run, always this long, so every content is BIG_BYTES. */
const bigHeader = (tag) => `// forge-bench ${tag.padEnd(24)}\n`;
/** The ways the calls file reaches `forge turn`: a path, standard input redirected from the file, a pipe. */
const BIG_FORMS = {
  file: { key: 'bigWriteFile', script: null },
  redirect: { key: 'bigWriteRedirect', script: 'f=$1; shift; exec "$@" <"$f"' },
  pipe: { key: 'bigWritePipe', script: 'set -o pipefail; f=$1; shift; cat -- "$f" | "$@"' },
};

/**
 * BIG_BYTES - header of source-like text (TypeScript-ish lines, string literals with quotes and
 * backslashes, a few non-ASCII characters in comments, so the JSON has escapes and multi-byte
 * UTF-8), from the seeded PRNG; and the same text escaped as a JSON string's inside.
 */
function sourceLikeText(bytes, seed, check) {
  const rand = prng(seed);
  const ids = ['value', 'index', 'result', 'config', 'buffer', 'options', 'handler', 'request', 'response', 'entry', 'items', 'count', 'offset', 'path', 'state', 'cache', 'token', 'session', 'tree', 'blob'];
  const types = ['string', 'number', 'boolean', 'Buffer', 'Uint8Array', 'Map<string, number>', 'readonly string[]', 'Promise<void>'];
  const words = ['the', 'file', 'is', 'read', 'once', 'then', 'written', 'when', 'its', 'hash', 'changed', 'cache', 'entry', 'for', 'a', 'path', 'café', 'naïve', '→', '—', 'µs'];
  const id = () => `${rand.pick(ids)}${rand.int(0, 99)}`;
  const comment = () => Array.from({ length: rand.int(3, 12) }, () => rand.pick(words)).join(' ');
  const templates = [
    (ind) => `${ind}const ${id()} = ${id()}.${rand.pick(ids)}(${id()}, ${rand.int(0, 4096)});`,
    (ind) => `${ind}if (${id()} === '${rand.pick(words)}') return "${rand.pick(ids)}\\n";`,
    (ind) => `${ind}// ${comment()}`,
    (ind) => `${ind}export function ${id()}(${id()}: ${rand.pick(types)}, ${id()}: ${rand.pick(types)}): ${rand.pick(types)} {`,
    (ind) => `${ind}}`,
    (ind) => `${ind}const re${rand.int(0, 9)} = /^[a-z]+\\d{2,}\\.${rand.pick(ids)}$/;`,
    (ind) => `${ind}throw new Error(\`\${${id()}} is not a ${rand.pick(types)}: "\${${id()}}"\`);`,
    (ind) => `${ind}for (let i = 0; i < ${id()}.length; i++) ${id()}[i] = ${id()}[i] ^ 0x${rand.int(0, 255).toString(16)};`,
    () => '',
  ];
  const chunks = [];
  const escaped = [];
  let lines = [];
  let used = 0;
  const flush = () => {
    const text = lines.join('');
    chunks.push(Buffer.from(text));
    escaped.push(Buffer.from(JSON.stringify(text).slice(1, -1)));
    lines = [];
  };
  for (;;) {
    const line = `${rand.pick(templates)('  '.repeat(rand.int(0, 4)))}\n`;
    const size = Buffer.byteLength(line);
    if (used + size > bytes - 100) break;
    lines.push(line);
    used += size;
    if (lines.length === 10_000) flush();
  }
  lines.push(`// ${'='.repeat(bytes - used - 4)}\n`); // the exact size
  flush();
  const text = Buffer.concat(chunks);
  check(text.length === bytes, `source-like text is ${text.length} bytes, not ${bytes}`);
  return { text, escaped: Buffer.concat(escaped) };
}

/** git hash-object's oid of header + body, computed here. */
const blobOid = (header, body) => createHash('sha1').update(`blob ${header.length + body.length}\0`).update(header).update(body).digest('hex');

/**
 * write_file of a 100 MB text file, whole `forge turn` process, one row per input form of the
 * calls file, against bench/git-turn.sh committing the same content (hash-object -w of it + one
 * commit). New sessions and branches on the benchmark repository's copy; each content is new
 * (its first line names the run); each commit is checked here (its blobs are too big for
 * validateTurns' one cat-file --batch), and by the final git fsck.
 */
export function run(ctx) {
  const { opts, gitdir, work, mainOid, gitBranches, forgeCli, inproc, measure, check, log, timeProcess, BASE_ENV, GIT_TURN } = ctx;
  const run = ctx.run;
  const cases = {};
  const runs = bigRuns(opts);
  const git = (args) => run('git', [`--git-dir=${gitdir}`, ...args]).trim();
  log(`write_file of a ${BIG_BYTES / 1e6} MB text file: generating the text`);
  const base = sourceLikeText(BIG_BYTES - bigHeader('').length, 7, check);
  const prefix = Buffer.from(`[{"tool":"write_file","args":{"path":${JSON.stringify(BIG_PATH)},"content":"`);
  const suffix = Buffer.from('"}}]');
  const pad = (n) => String(n).padStart(2, '0');
  const checkCommit = (side, ref, commit, parent, oid, extra) => {
    check(/^[0-9a-f]{40}$/.test(commit ?? ''), `${side} big write: no commit (${commit})`);
    check(git(['rev-parse', ref]) === commit, `${ref} is not the big write's commit ${commit}`);
    check(git(['rev-list', '--parents', '-n', '1', commit]) === `${commit} ${parent}`, `${side} big write ${commit}: parent is not ${parent}`);
    check(git(['rev-parse', `${commit}:${BIG_PATH}`]) === oid, `${side} big write ${commit}: ${BIG_PATH} is not the written content (oid ${oid})`);
    check(Number(git(['cat-file', '-s', `${commit}:${BIG_PATH}`])) === BIG_BYTES, `${side} big write ${commit}: ${BIG_PATH} is not ${BIG_BYTES} bytes`);
    const changed = run('git', [`--git-dir=${gitdir}`, 'diff-tree', '-r', '--no-renames', '--name-only', '-z', parent, commit]).split('\0').filter(Boolean).sort();
    check(JSON.stringify(changed) === JSON.stringify([BIG_PATH, ...extra].sort()), `${side} big write ${commit} changed ${changed.join(', ')}`);
  };

  for (const [form, { key, script }] of Object.entries(BIG_FORMS)) {
    const sessionIds = Array.from({ length: runs + 1 }, (_, i) => `bench-big-${form}-${i}`);
    const specFile = join(work, `sessions-big-${form}.json`);
    writeFileSync(specFile, JSON.stringify(sessionIds.map((session) => ({ session, read: [] }))));
    const heads = new Map(inproc(['sessions', gitdir, specFile]).sessions.map((s) => [s.session, s.head]));
    const branches = gitBranches(`big-${form}`, runs + 1);
    cases[key] = measure(`write_file of a 100 MB file, --calls ${form} (process)`, runs, {
      forge: (i) => {
        const header = Buffer.from(bigHeader(`F-${form}-${pad(i)}`));
        const callsFile = join(work, `calls-big-${form}-${i}.json`);
        writeFileSync(callsFile, Buffer.concat([prefix, Buffer.from(JSON.stringify(header.toString()).slice(1, -1)), base.escaped, suffix]));
        const argv = [opts.forgeBin, 'turn', '--repo', gitdir, '--session', sessionIds[i], '--calls', script ? '-' : callsFile, '--json'];
        let r;
        try {
          r = script ? timeProcess('bash', ['-c', script, 'bash', callsFile, process.execPath, ...argv], { env: BASE_ENV }) : forgeCli(argv.slice(1));
        } finally {
          rmSync(callsFile, { force: true });
        }
        const out = JSON.parse(r.stdout.toString('utf8'));
        check(out.results?.length === 1 && out.results[0].ok && out.results[0].output?.bytes === BIG_BYTES, `forge turn (big write, ${form}): ${JSON.stringify(out).slice(0, 500)}`);
        checkCommit('forge', `refs/heads/forge/session/${sessionIds[i]}`, out.commit, heads.get(sessionIds[i]), blobOid(header, base.text), [`.forge/sessions/${sessionIds[i]}.json`]);
        return { ms: r.ms, rssKiB: r.rssKiB };
      },
      git: (i) => {
        const header = Buffer.from(bigHeader(`G-${form}-${pad(i)}`));
        const dir = join(work, 'turn', `big-${form}-${i}`);
        mkdirSync(dir, { recursive: true });
        const content = join(dir, 'content');
        writeFileSync(content, Buffer.concat([header, base.text]));
        writeFileSync(join(dir, 'blobs'), `${content}\n`);
        writeFileSync(join(dir, 'paths'), `${BIG_PATH}\n`);
        try {
          const r = timeProcess('bash', [GIT_TURN, gitdir, branches[i], dir], { encoding: 'utf8' });
          const oid = run('git', ['hash-object', content]).trim();
          check(oid === blobOid(header, base.text), `git hash-object of the content is ${oid}, not ${blobOid(header, base.text)}`);
          checkCommit('git', `refs/heads/${branches[i]}`, r.stdout.trim(), mainOid, oid, []);
          return { ms: r.ms, rssKiB: r.rssKiB };
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    });
    const rss = cases[key].results.forge.map((r) => r.rssKiB);
    cases[key].forgeRssMedian = rss.every((v) => v != null) ? median(rss) : null;
    log(`  forge peak RSS per run (MiB): ${rss.map((v) => fmtRss(v)).join(', ')}; git: ${cases[key].results.git.map((r) => fmtRss(r.rssKiB)).join(', ')}`);
  }
  return cases;
}

export function rows({ cases }) {
  const bigRss = (key) => (cases[key]?.forgeRssMedian != null ? `; forge's median peak RSS ${fmtRss(cases[key].forgeRssMedian)}` : '');
  const target = { text: 'median peak RSS < 3x the file (300 MB)', met: (c) => (c.forgeRssMedian == null ? null : c.forgeRssMedian * 1024 < BIG_RSS_LIMIT) };
  return [
    { key: 'bigWriteFile', label: `write_file of a 100 MB text file, whole \`forge turn --calls FILE\` process vs git plumbing script (\`hash-object -w\` + commit)${bigRss('bigWriteFile')}`, target },
    { key: 'bigWriteRedirect', label: `… the same with \`forge turn --calls - < FILE\` (standard input redirected from the file)${bigRss('bigWriteRedirect')}`, target },
    { key: 'bigWritePipe', label: `… the same with \`cat FILE\` piped into \`forge turn --calls -\` (standard input a pipe)${bigRss('bigWritePipe')}`, target },
  ];
}

export function notes({ opts }) {
  const int = (n) => n.toLocaleString('en-US');
  return [`- **write_file of a 100 MB text file**: before each run a calls file \`[{"tool":"write_file","args":{"path":"${BIG_PATH}","content":…}}]\` is written whose content is ${int(BIG_BYTES)} bytes of seeded source-like text (quotes, backslashes and some multi-byte UTF-8, so the JSON has escapes; its first line names the run, so every blob is new), and \`node dist/cli.js turn --repo R --session S --calls FILE --json\` on a new session of the benchmark repository's copy is timed with the file as a path, as \`--calls - < FILE\` and as \`cat FILE | … --calls -\` (these two through \`bash -c\`, whose peak RSS is its largest process's), against \`bench/git-turn.sh\` committing the same content from a file (\`hash-object -w\`, \`read-tree\`, \`update-index\`, \`write-tree\`, \`commit-tree\`, \`update-ref\`), median of ${bigRuns(opts)} runs per side after one warm-up, each commit's \`${BIG_PATH}\` checked against the content's \`git hash-object\` oid and size, and the target compares forge's median peak RSS with ${int(BIG_RSS_LIMIT)} bytes (${fmtRss(BIG_RSS_LIMIT / 1024)}).`];
}
