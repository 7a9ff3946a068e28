#!/usr/bin/env node
/**
 * The inspector at scale, in Chromium (Debian's, driven by playwright-core): a repository with
 * 1,000 sessions (the sessions list: API time, time until the page shows every row), a session
 * of 500 turns (its timeline: API time, time until shown), and a turn rewriting half the lines
 * of a 10,000-line file (the diff: time until shown, the longest main-thread task while it is
 * drawn and coloured, time until coloured). Writes its section of docs/PERFORMANCE.md.
 *
 *   node bench/inspect-bench.mjs [--runs 5] [--no-write] [--chromium /usr/bin/chromium]
 *
 * Not part of `npm test` (no timed assertions there). Uses the built dist/ (npm run build).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { HERMETIC_ENV } from './git-env.mjs';
import { Repository, SessionStore, SessionToolRunner, allowAll, nodePlatform } from '../dist/index.js';

const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 5;
const WRITE = !args.includes('--no-write');
const CHROMIUM = args.includes('--chromium') ? args[args.indexOf('--chromium') + 1] : '/usr/bin/chromium';
const ROOT = resolve('.');
const FORGE = join(ROOT, 'dist', 'cli.js');
const OUT = join(ROOT, 'docs', 'PERFORMANCE.md');
const BEGIN = '<!-- inspect-bench:begin -->';
const END = '<!-- inspect-bench:end -->';

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
/** The longtask API reports tasks over 50 ms only: 0 is none. */
const task = (x) => (x === 0 ? 'none over 50 ms' : `${ms(x)} ms`);
const log = (...m) => console.error('[inspect-bench]', ...m);

async function git(dir, argv, input) {
  const { execFileSync } = await import('node:child_process');
  return execFileSync('git', argv, { cwd: dir, env: { ...process.env, ...HERMETIC_ENV, GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@forge.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@forge.invalid' }, input, encoding: 'utf8' });
}

async function makeRepo(root) {
  const dir = join(root, 'repo');
  fs.mkdirSync(dir);
  await git(dir, ['init', '-q', '-b', 'main']);
  const big = Array.from({ length: 10_000 }, (_, i) => `export const value${i} = ${i}; // line ${i + 1}\n`).join('');
  writeFileSync(join(dir, 'big.ts'), big);
  writeFileSync(join(dir, 'README.md'), '# scale\n');
  await git(dir, ['add', '.']);
  await git(dir, ['commit', '-qm', 'start']);
  const repo = await Repository.open({ fs, dir, platform: nodePlatform });
  const store = new SessionStore(repo);
  const turn = async (session, user, calls, message) => {
    await session.recordUserMessage(user);
    const runner = new SessionToolRunner(session, { approval: allowAll });
    for (const call of calls) await runner.call(call);
    await session.recordMessage({ role: 'assistant', content: `Done: ${message}` });
    return session.commitTurn({ message });
  };

  log('1,000 sessions, one turn each');
  for (let i = 0; i < 1000; i++) {
    const s = await store.create({ id: `s${String(i).padStart(4, '0')}`, base: 'main' });
    await turn(s, `Task ${i}: write a note`, [{ tool: 'write_file', args: { path: `notes/${i}.md`, content: `note ${i}\n` } }], `note ${i}`);
  }
  log('a session of 500 turns');
  const long = await store.create({ id: 'long', base: 'main' });
  for (let i = 1; i <= 500; i++) {
    await turn(long, `Turn ${i}: add a file`, [{ tool: 'write_file', args: { path: `long/${String(i).padStart(3, '0')}.txt`, content: `turn ${i}\n` } }], `file ${i}`);
  }
  log('a turn rewriting 5,000 of the 10,000 lines of big.ts');
  const bigSession = await store.create({ id: 'big', base: 'main' });
  const rewritten = big.split('\n').map((line, i) => (i % 2 === 0 && line ? line.replace('export const', 'export let') : line)).join('\n');
  const t = await turn(bigSession, 'Make every other constant mutable', [{ tool: 'read_file', args: { path: 'big.ts', end_line: 1 } }, { tool: 'write_file', args: { path: 'big.ts', content: rewritten } }], 'big rewrite');
  return { dir, bigCommit: t.commit };
}

async function startInspector(dir) {
  const child = spawn(process.execPath, [FORGE, 'inspect', '--repo', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /forge inspect: (\S+)/.exec(out);
      if (m) ok(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`forge inspect exited ${code}`)));
  });
  // The printed URL's secret buys the access cookie (as a browser opening it does): the API timings send it.
  const entry = await fetch(url, { redirect: 'manual' });
  const cookie = entry.headers.get('set-cookie')?.split(';')[0] ?? '';
  return { url, origin: new URL('/', url).toString(), cookie, stop: () => new Promise((done) => (child.exitCode !== null || child.signalCode !== null ? done() : (child.once('exit', done), child.kill('SIGTERM')))) };
}

async function timeApi(url, cookie) {
  const start = performance.now();
  const res = await fetch(url, { headers: { cookie } });
  const body = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${body.slice(0, 200)}`);
  return { ms: performance.now() - start, bytes: body.length, body };
}

/**
 * Loads a view in a fresh page; "shown" is on the page's own clock: from navigation start until
 * the frame after the view marks itself loaded (#app[data-loaded]) has been painted (a task
 * after that animation frame). A MutationObserver in the page sees the mark as it is set, so no
 * round trip to this driver is counted.
 */
async function timePage(browser, url, loaded, extra) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => log('page error:', e.message));
  await page.addInitScript(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: true });
    new MutationObserver(() => {
      if (window.__colouredAt === undefined && document.querySelector('.diff[data-coloured="true"]')) window.__colouredAt = performance.now();
      if (window.__loadedAt !== undefined || !document.getElementById('app')?.dataset.loaded) return;
      window.__loadedAt = performance.now();
      requestAnimationFrame(() => setTimeout(() => (window.__shownAt = performance.now())));
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-loaded', 'data-coloured'] });
  });
  await page.goto(url);
  await page.waitForSelector(`#app[data-loaded="${loaded}"]`, { timeout: 120_000 });
  await page.waitForFunction(() => window.__shownAt !== undefined, undefined, { timeout: 120_000 });
  const shown = await page.evaluate(() => window.__shownAt);
  const more = extra ? await extra(page) : {};
  const longest = await page.evaluate(() => window.__longest);
  await page.close();
  return { shown, longest, ...more };
}

/** The API calls the pages make, timed from this process. */
async function measureApis({ origin, cookie }, bigCommit) {
  const list = await timeApi(`${origin}api/sessions`, cookie);
  const timeline = await timeApi(`${origin}api/sessions/long/turns`, cookie);
  const timelineJson = await timeApi(`${origin}api/sessions/long/timeline`, cookie);
  const diff = await timeApi(`${origin}api/commits/${bigCommit}/turn`, cookie);
  return { list, timeline, timelineJson, diff };
}

async function measurePages(browser, url, bigCommit) {
  const listPage = await timePage(browser, `${url}#/`, 'sessions', async (page) => ({ rows: await page.locator('tr[data-session]').count() }));
  const timelinePage = await timePage(browser, `${url}#/s/long`, 'timeline', async (page) => ({ turns: await page.locator('article.turn').count() }));
  const diffPage = await timePage(browser, `${url}#/c/${bigCommit}`, 'turn', async (page) => {
    await page.waitForFunction(() => window.__colouredAt !== undefined, undefined, { timeout: 120_000 });
    return { coloured: await page.evaluate(() => window.__colouredAt), lines: await page.locator('.d2h-code-line-ctn').count() };
  });
  if (listPage.rows !== 1002 || timelinePage.turns !== 501 || diffPage.lines < 10_000) throw new Error(`unexpected page contents: ${JSON.stringify({ listPage, timelinePage, diffPage })}`);
  return { listPage, timelinePage, diffPage };
}

const KEEP = process.env.FORGE_INSPECT_BENCH_DIR; // reuse (or keep) the built repository there, for debugging
const root = KEEP ?? mkdtempSync(join(tmpdir(), 'forge-inspect-bench-'));
let inspector;
let browser;
try {
  const built = performance.now();
  const { dir, bigCommit } = KEEP && fs.existsSync(join(root, 'repo')) ? { dir: join(root, 'repo'), bigCommit: await git(join(root, 'repo'), ['rev-parse', 'forge/session/big']).then((s) => s.trim()) } : await makeRepo(root);
  log(`repository built in ${((performance.now() - built) / 1000).toFixed(1)} s`);
  const loadAtStart = loadavg()[0];
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  // First requests: each on a server just started (nothing kept from an earlier request, code not
  // yet optimized by V8), the API calls on one, the pages on another.
  inspector = await startInspector(dir);
  const coldApi = await measureApis(inspector, bigCommit);
  await inspector.stop();
  inspector = await startInspector(dir);
  const coldPage = await measurePages(browser, inspector.url, bigCommit);
  await inspector.stop();
  log(`first after start: list ${ms(coldApi.list.ms)} / ${ms(coldPage.listPage.shown)} ms, timeline ${ms(coldApi.timeline.ms)} / ${ms(coldPage.timelinePage.shown)} ms, diff ${ms(coldApi.diff.ms)} / ${ms(coldPage.diffPage.shown)} ms`);
  inspector = await startInspector(dir);
  const rows = { listApi: [], listPage: [], timelineApi: [], timelineJsonApi: [], timelinePage: [], diffApi: [], diffPage: [], diffLongest: [], diffColoured: [] };
  let sizes = {};
  for (let run = 0; run <= RUNS; run++) {
    const { list, timeline, timelineJson, diff } = await measureApis(inspector, bigCommit);
    const { listPage, timelinePage, diffPage } = await measurePages(browser, inspector.url, bigCommit);
    sizes = { list: list.bytes, timeline: timeline.bytes, diff: diff.bytes, diffLines: diffPage.lines };
    if (run === 0) continue; // warm-up
    rows.listApi.push(list.ms);
    rows.listPage.push(listPage.shown);
    rows.timelineApi.push(timeline.ms);
    rows.timelineJsonApi.push(timelineJson.ms);
    rows.timelinePage.push(timelinePage.shown);
    rows.diffApi.push(diff.ms);
    rows.diffPage.push(diffPage.shown);
    rows.diffLongest.push(diffPage.longest);
    rows.diffColoured.push(diffPage.coloured);
    log(`run ${run}: list ${ms(list.ms)} / ${ms(listPage.shown)} ms, timeline ${ms(timeline.ms)} (JSON ${ms(timelineJson.ms)}) / ${ms(timelinePage.shown)} ms, diff ${ms(diff.ms)} / ${ms(diffPage.shown)} ms (longest task ${ms(diffPage.longest)}, coloured ${ms(diffPage.coloured)})`);
  }
  const m = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, median(v)]));
  const verdict = (x, target) => (x < target ? 'yes' : '**no**');
  const version = (await import('node:child_process')).execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).trim();
  const loadAtEnd = loadavg()[0];
  const overloaded = Math.max(loadAtStart, loadAtEnd) > cpus().length;
  const section = [
    BEGIN,
    '## The inspector (`forge inspect`)',
    '',
    `Generated by \`node bench/inspect-bench.mjs\` (${new Date().toISOString().slice(0, 10)}; ${cpus().length} CPUs, load average ${loadAtStart.toFixed(1)} at the start of the run and ${loadAtEnd.toFixed(1)} at its end; Node ${process.version}; ${version}, headless, driven by playwright-core). The server is the built \`forge inspect\` process. "Shown" is the time on the page's own clock from navigation start until the view has drawn everything and a frame is painted (a MutationObserver in the page sees the view mark itself loaded, then one animation frame and a task; until 2026-11-25 this bench took that time after a round trip to the driver, which added the driver's latency to every number). Median of ${RUNS} runs after a warm-up, the server having answered the same requests before; "first after start" is one run on a server just started (nothing kept from an earlier request, V8 not warmed up; the repository's files are in the OS cache).`,
    '',
    '| case | API (ms) | shown in Chromium (ms) | first after start: API / shown (ms) | target | met (first after start) |',
    '| --- | ---: | ---: | ---: | --- | --- |',
    `| sessions list, 1,000 sessions (${(sizes.list / 1024).toFixed(0)} KiB of JSON lines, streamed) | ${ms(m.listApi)} | ${ms(m.listPage)} | ${ms(coldApi.list.ms)} / ${ms(coldPage.listPage.shown)} | API < 300 ms, shown < 1 s | ${verdict(m.listApi, 300)} / ${verdict(m.listPage, 1000)} (${verdict(coldApi.list.ms, 300)} / ${verdict(coldPage.listPage.shown, 1000)}) |`,
    `| timeline of a 500-turn session (${(sizes.timeline / 1024).toFixed(0)} KiB of JSON lines, streamed; the same as one JSON: ${ms(m.timelineJsonApi)} ms) | ${ms(m.timelineApi)} | ${ms(m.timelinePage)} | ${ms(coldApi.timeline.ms)} / ${ms(coldPage.timelinePage.shown)} | shown < 1 s | ${verdict(m.timelinePage, 1000)} (${verdict(coldPage.timelinePage.shown, 1000)}) |`,
    `| a turn rewriting 5,000 lines of a 10,000-line file (${sizes.diffLines.toLocaleString('en')} diff lines) | ${ms(m.diffApi)} | first lines ${ms(m.diffPage)}; all drawn (on-screen part coloured) ${ms(m.diffColoured)}; longest main-thread task ${task(m.diffLongest)} | ${ms(coldApi.diff.ms)} / ${ms(coldPage.diffPage.shown)}; longest task ${task(coldPage.diffPage.longest)} | no freeze | — |`,
    '',
    'The list streams one JSON line per session (gathered into chunks of up to 32 KiB or 15 ms), each session\'s state read and dropped before the next (never 1,000 states in memory); a state is read for its summary fields only (not checked against the whole schema), the summary is kept by head commit, so a list asked again reads only the sessions that moved, and only the sessions that have a journal have it read. The server reads the summaries in the background from its start, giving way to requests ("first after start" asks at once, before that has done much). The page adds each frame\'s rows as one piece of markup; each row is a grid of its own, and rows off screen skip layout and paint (`content-visibility: auto`: as a table, every added row or filled cell laid out all 1,000 rows again). A row\'s merge check (a dry-run merge) runs once the list is painted, only for rows that come near the screen (all of them when a merge state is chosen in the filter), and is not part of "shown".',
    '',
    'The timeline is streamed too: a header line (the session, its pending changes, its commits: a walk that reads commits only), then one line per turn, oldest first, drawn a frame\'s worth at a time as one piece of markup; turns off screen skip layout and paint; a tool call\'s arguments and result are formatted when their fold first opens; the merge preview starts once the timeline is painted. A turn\'s files with their +/- counts are kept by commit: after a live update only the new turn is computed, and the page redraws only the turns whose markup changed. Since the review page (2026-11-27) each turn also carries its conversation order, author and model, and the header says whether the session is merged into its target (a merge-base walk): that answer is kept per (session head, target head) and walks the commits the timeline already read, and the whole list of turns is kept per session head, so a timeline asked again for the same head (the warm rows) recomputes nothing.',
    '',
    'The diff is computed with xdiff\'s Myers (the library\'s jsdiff-based `filePatches` took 84 s on this file, the histogram diff 38 s), drawn by diff2html in 100-line pieces within a 10 ms budget per frame (one 15,000-line call blocked the page for seconds), pieces off screen skip layout (`content-visibility: auto`), and highlight.js colours the lines of a piece that nears the viewport, 6 ms\' worth per frame (a whole piece at once was one long task). diff2html and highlight.js (~140 KB of the page\'s script) are initialized only when a view draws code.',
    ...(overloaded
      ? ['', `**This run is not a verdict on the targets**: the load average (${Math.max(loadAtStart, loadAtEnd).toFixed(1)}) was above the ${cpus().length} CPUs, so the server and the browser each got a fraction of a core; these numbers measure that contention as much as the inspector. Rerun on an idle machine.`]
      : []),
    END,
  ].join('\n');
  console.log(section);
  if (WRITE) {
    const doc = readFileSync(OUT, 'utf8');
    const at = doc.indexOf(BEGIN);
    const next = at === -1 ? `${doc.trimEnd()}\n\n${section}\n` : `${doc.slice(0, at)}${section}${doc.slice(doc.indexOf(END) + END.length)}`;
    writeFileSync(OUT, next);
    log(`wrote ${OUT}`);
  }
} finally {
  await browser?.close();
  await inspector?.stop();
  if (!KEEP) rmSync(root, { recursive: true, force: true });
}
