/**
 * The review page of `forge inspect` (issue 29) in Chromium: from a line of a merged file on
 * main (blame in the page) to the conversation turn that wrote it; the conversation in its
 * order; author, model and zone labels; the session's diff against its merge target with its
 * file list and "viewed" marks remembered by the browser; a 5,000-line new file as one real hunk
 * with its long run folded; the merge flow (disabled on a conflicting preview, the confirmation
 * repeating the verdict, a merged marker after); a rewound branch announced; the session search
 * with its text, author, since and case fields (checked against forge log); the session diff
 * following the target chosen in the merge panel; and a session whose message and file path are
 * hostile markup, shown as text.
 * What the page shows is checked against the git CLI (blame, diff).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';
import { TEST_AUTHOR } from '../helpers/test-identity';
import { CHROMIUM_PATH, chromiumProblem, chromiumSkipped } from './chromium.mjs';
import { buildInspectRepo, startInspector, type InspectRepo, type RunningInspector } from './inspect-fixture';

let repo: InspectRepo;
let inspector: RunningInspector;
let browser: Browser;
let page: Page;

const rev = (ref: string) => git(repo.dir, ['rev-parse', ref]).stdout.trim();

/** The review session's author and clock: a zone that is not UTC, so the label has something to say. */
const REVIEWER = { GIT_AUTHOR_NAME: 'Ada Reviewer', GIT_AUTHOR_EMAIL: 'ada@example.invalid', GIT_AUTHOR_DATE: '1704067200 +0530', GIT_COMMITTER_DATE: '1704067200 +0530' };
const HOSTILE_MESSAGE = 'Review <img src=x onerror="window.__pwned=1"> this <script>window.__pwned=2</script> & "quote"';
const HOSTILE_PATH = 'notes/<b onmouseover=alert(1)>x</b>.md';
const BIG_LINES = 5000;

function ok(run: ReturnType<typeof forge>): ReturnType<typeof forge> {
  if (run.status !== 0) throw new Error(`forge failed (${run.status}): ${run.stderr}`);
  return run;
}

const SHOTS = resolve(process.env.FORGE_SCREENSHOT_DIR ?? '.tmp/screenshots/inspect');

async function shot(name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

async function open(hash: string, loaded: string): Promise<void> {
  await page.goto(`${inspector.url}${hash}`);
  await page.waitForSelector(`#app[data-loaded="${loaded}"]`);
}

beforeAll(async () => {
  if (chromiumSkipped()) return;
  const problem = chromiumProblem();
  if (problem) throw new Error(problem);
  repo = buildInspectRepo(makeTempDir('inspect-review'));
  // A session by another author in another zone: a 5,000-line new file, and hostile markup in its message and a path.
  ok(forge(['session', 'new', '--repo', repo.dir, '--id', 'review', '--base', 'main'], { env: REVIEWER }));
  const big = Array.from({ length: BIG_LINES }, (_, i) => `generated line ${i + 1}\n`).join('');
  const calls = [
    { tool: 'write_file', args: { path: 'big/generated.txt', content: big } },
    { tool: 'write_file', args: { path: HOSTILE_PATH, content: '<script>window.__pwned=3</script>\n' } },
  ];
  ok(forge(['turn', '--repo', repo.dir, '--session', 'review', '--calls', '-', '--message', HOSTILE_MESSAGE], { input: JSON.stringify(calls), env: REVIEWER }));
  // The demo session merged into main, so main's src/math.js has lines a session turn wrote.
  ok(forge(['merge', 'demo', '--repo', repo.dir, '--into', 'main']));
  inspector = await startInspector(repo.dir);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (error) => {
    throw error;
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await inspector?.stop();
});

describe.skipIf(chromiumSkipped())('the review page of forge inspect', () => {
  it('goes from a line of a merged file on main to the conversation turn that wrote it, in conversation order, with author and zone', async () => {
    const line = 'if (values.length === 0) return 0;';
    await open('#/blame/main/src/math.js', 'blame');
    const row = page.locator('div.bl', { hasText: line });
    expect(await row.count()).toBe(1);
    const number = Number(await row.getAttribute('data-line'));
    // git blame is the oracle for the commit of the line.
    const porcelain = git(repo.dir, ['blame', '--porcelain', '-L', `${number},${number}`, 'main', '--', 'src/math.js']).stdout;
    const blamed = porcelain.split(' ')[0]!;
    expect(await row.getAttribute('data-commit')).toBe(blamed);
    expect(git(repo.dir, ['log', '-1', '--format=%(trailers:key=Forge-Session,valueonly)', blamed]).stdout.trim()).toBe('demo');
    expect(await page.locator(`div.bl[data-commit="${blamed}"].first .by-session`).first().textContent()).toMatch(/^demo · turn 1/);
    await shot('review-blame');

    await row.click();
    await page.waitForSelector('#app[data-loaded="turn"]');
    expect(page.url()).toContain(`#/c/${blamed}/call/`);
    // The call that wrote the line is picked out: an edit of src/math.js.
    const picked = page.locator('.tool-call.picked');
    expect(await picked.count()).toBe(1);
    expect(['Edit', 'Patch']).toContain(await picked.getAttribute('data-tool'));
    expect(await picked.locator('.tool-head .path').textContent()).toBe('src/math.js');
    expect(await picked.locator('pre.args').textContent()).toContain(line);

    // The conversation in its order: the user, then each reply's text followed by the calls it made.
    const script = JSON.parse(readFileSync(resolve('examples/fix-average/script.json'), 'utf8')) as { turns: Array<{ replies: Array<{ text?: string; tool_calls?: Array<{ tool: string }> }> }> };
    const expected = ['user', ...script.turns[0]!.replies.flatMap((r) => [...(r.text ? ['assistant'] : []), ...(r.tool_calls ?? []).map((c) => c.tool)])];
    const shown = await page.locator('.conversation .conversation-items > *').evaluateAll((els) => els.map((e) => ((e as HTMLElement).dataset.tool ?? (e.classList.contains('user') ? 'user' : e.classList.contains('assistant') ? 'assistant' : e.className))));
    expect(shown).toEqual(expected);
    // Each call reads as a summary: tool, path, what changed, ok.
    const run = page.locator('.conversation .tool-call[data-tool="run_command"]').first();
    expect(await run.locator('.tool-head').textContent()).toBe('run_command node --testok');

    // The author and the time with its zone.
    expect(await page.locator('.turn-head .author').textContent()).toBe(TEST_AUTHOR.name);
    expect(await page.locator('.turn-head time.time').textContent()).toBe('2024-01-01 00:00:00 +0000');
    expect(await page.locator('.turn-head time.time').getAttribute('title')).toMatch(/\(your time\)$/);
    await shot('review-turn-from-blame');
  });

  it("shows a session's author in their zone, its diff against the merge target with a file list, and remembers what was viewed", async () => {
    await open('#/s/review', 'timeline');
    const turn = page.locator('article.turn[data-turn="1"]');
    expect(await turn.locator('.author').textContent()).toBe('Ada Reviewer');
    expect(await turn.locator('time.time').textContent()).toBe('2024-01-01 05:30:00 +0530');
    // The 5,000-line write, whose record keeps only its start, is summarized from the commit.
    expect(await turn.locator('.tool-call[data-tool="write_file"] .tool-head').first().textContent()).toBe('write_file big/generated.txt wrote the file (+5000 -0 this turn)ok');
    // The session's files against main, as git diff main...review names them.
    await page.waitForSelector('.session-diff[data-loaded="true"]');
    const expectedFiles = git(repo.dir, ['diff', '--name-only', 'main...forge/session/review', '--', '.', ':!.forge'])
      .stdout.trim()
      .split('\n')
      .map((p) => p.replace(/^"|"$/g, ''));
    const listed = await page.locator('.session-diff ul.file-list a.jump').allTextContents();
    expect(listed.length).toBe(expectedFiles.length);
    expect(listed).toContain('big/generated.txt');
    expect(listed).toContain(HOSTILE_PATH);
    expect(await page.locator('.session-diff h3').textContent()).toContain('against main');

    // The 5,000-line new file: one real hunk, its long run folded.
    const big = page.locator('.session-diff section.file[data-path="big/generated.txt"]');
    await page.locator('.session-diff a.jump', { hasText: 'big/generated.txt' }).click();
    const hunkHeads = async () => (await big.locator('td.d2h-info:not(.d2h-code-linenumber)').allTextContents()).map((t) => t.trim());
    await expect.poll(hunkHeads).toEqual([`@@ -0,0 +1,${BIG_LINES} @@`]);
    const unfold = big.locator('button.unfold');
    expect(await unfold.getAttribute('data-lines')).toBe(String(BIG_LINES - 200));
    expect(await big.textContent()).not.toContain('generated line 2500\n');
    await unfold.click();
    await expect.poll(async () => (await big.locator('.d2h-code-line-ctn').allTextContents()).includes('generated line 2500')).toBe(true);
    expect(await hunkHeads()).toEqual([`@@ -0,0 +1,${BIG_LINES} @@`]);
    await shot('review-session-diff');

    // A file marked viewed stays so after a reload (this browser's storage), and folds away.
    await page.locator('.session-diff input.file-viewed[aria-label="viewed big/generated.txt"]').check();
    await page.locator('article.turn[data-turn="1"] input.turn-viewed').check();
    await open('#/s/review', 'timeline');
    await page.waitForSelector('.session-diff[data-loaded="true"]');
    expect(await page.locator('.session-diff input.file-viewed[aria-label="viewed big/generated.txt"]').isChecked()).toBe(true);
    expect(await page.locator('.session-diff section.file[data-path="big/generated.txt"]').getAttribute('class')).toContain('viewed');
    expect(await page.locator('.session-diff .viewed-count').textContent()).toBe(`1 of ${expectedFiles.length} viewed`);
    expect(await page.locator('article.turn[data-turn="1"]').getAttribute('class')).toContain('viewed');
    expect(await page.locator('.badge.new').count()).toBe(0);
    await shot('review-timeline');

    // A turn committed while the reviewer was away is new "since I last looked".
    await page.goto('about:blank');
    ok(forge(['turn', '--repo', repo.dir, '--session', 'review', '--calls', '-', '--message', 'One more'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'more.txt', content: 'more\n' } }]), env: REVIEWER }));
    await open('#/s/review', 'timeline');
    expect(await page.locator('article.turn[data-turn="2"] .badge.new').count()).toBe(1);
    expect(await page.locator('article.turn[data-turn="1"] .badge.new').count()).toBe(0);
  });

  it('shows hostile markup from a session as text and runs none of it', async () => {
    await open('#/s/review', 'timeline');
    expect(await page.locator('article.turn[data-turn="1"] .msg.user .text').textContent()).toBe(HOSTILE_MESSAGE);
    expect(await page.locator('article.turn[data-turn="1"] .summary').textContent()).toContain('<img src=x');
    await page.waitForSelector('.session-diff[data-loaded="true"]');
    await open(`#/blame/forge%2Fsession%2Freview/${HOSTILE_PATH.split('/').map(encodeURIComponent).join('/')}`, 'blame');
    expect(await page.locator('.blame-head .path').textContent()).toBe(HOSTILE_PATH);
    expect(await page.locator('.bl-text').first().textContent()).toBe('<script>window.__pwned=3</script>');
    await open(`#/search/${encodeURIComponent('onerror')}`, 'search');
    expect(await page.locator('li.hit[data-session="review"] .matches').first().textContent()).toContain('<img src=x');
    expect(await page.locator('img[src="x"], b[onmouseover], main script').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it('searches the sessions as forge log --grep does and opens the turn found', async () => {
    await open('#/', 'sessions');
    await page.fill('#search-text', 'returns NaN');
    await page.press('#search-text', 'Enter');
    await page.waitForSelector('#app[data-loaded="search"]');
    const cli = ok(forge(['log', '--repo', repo.dir, '--grep', 'returns NaN', '--regexp-ignore-case', '--json'])).json() as { hits: Array<{ session: string; turn: number }> };
    const hits = await page.locator('li.hit').evaluateAll((els) => els.map((e) => `${(e as HTMLElement).dataset.session}:${(e as HTMLElement).dataset.turn}`));
    expect(hits.sort()).toEqual(cli.hits.map((h) => `${h.session}:${h.turn}`).sort());
    expect(hits).toContain('demo:1');
    await page.locator('li.hit[data-session="demo"][data-turn="1"] a.hit-link').click();
    await page.waitForSelector('#app[data-loaded="timeline"]');
    expect(await page.locator('article.turn.focused').getAttribute('data-turn')).toBe('1');
  });

  it('searches by text, author, since (as forge log --since reads it) and case, from the fields of the search page', async () => {
    // A session committed yesterday by another author: "since" has something to tell apart.
    const yesterday = `${Math.floor(Date.now() / 1000) - 86400} +0000`;
    const BO = { GIT_AUTHOR_NAME: 'Bo Recent', GIT_AUTHOR_EMAIL: 'bo@example.invalid', GIT_AUTHOR_DATE: yesterday, GIT_COMMITTER_DATE: yesterday };
    ok(forge(['session', 'new', '--repo', repo.dir, '--id', 'recent', '--base', 'main'], { env: BO }));
    ok(forge(['turn', '--repo', repo.dir, '--session', 'recent', '--calls', '-', '--message', 'Tidy the widget notes'], { input: JSON.stringify([{ tool: 'write_file', args: { path: 'notes/recent.md', content: 'recent\n' } }]), env: BO }));

    type Fields = { grep?: string; author?: string; since?: string; matchCase?: boolean };
    /** Fills the page's form, submits it, and waits for the search it asked for. */
    const search = async (f: Fields) => {
      const form = page.locator('form.search-form');
      await form.locator('input[name="grep"]').fill(f.grep ?? '');
      await form.locator('input[name="author"]').fill(f.author ?? '');
      await form.locator('input[name="since"]').fill(f.since ?? '');
      await form.locator('input[name="case"]').setChecked(f.matchCase ?? false);
      await form.locator('button[type="submit"]').click();
      await page.waitForFunction(
        (want) => {
          const app = document.getElementById('app')!;
          const text = (sel: string) => app.querySelector(sel)?.textContent ?? '';
          return app.dataset.loaded === 'search' && text('h2 .q-grep') === want.grep && text('h2 .q-author') === want.author && text('h2 .q-since') === want.since && text('h2').endsWith(want.matchCase ? '(case matters)' : '(any case)');
        },
        { grep: f.grep ?? '', author: f.author ?? '', since: f.since ?? '', matchCase: f.matchCase ?? false },
      );
    };
    const shownHits = async () => (await page.locator('li.hit').evaluateAll((els) => els.map((e) => `${(e as HTMLElement).dataset.session}:${(e as HTMLElement).dataset.turn}`))).sort();
    /** forge log's answer to the same search: the oracle. */
    const cliHits = (f: Fields) => {
      const args = ['log', '--repo', repo.dir, '--json'];
      if (f.grep) args.push('--grep', f.grep);
      if (f.author) args.push('--author', f.author);
      if (f.since) args.push('--since', f.since);
      if (!f.matchCase) args.push('--regexp-ignore-case');
      return (ok(forge(args)).json() as { hits: Array<{ session: string; turn: number }> }).hits.map((h) => `${h.session}:${h.turn}`).sort();
    };

    // The header's box opens the page with its text; the fields are there to narrow it.
    await open('#/', 'sessions');
    await page.fill('#search-text', 'nan|WIDGET');
    await page.press('#search-text', 'Enter');
    await page.waitForSelector('#app[data-loaded="search"] form.search-form');
    expect(await page.locator('form.search-form input[name="grep"]').inputValue()).toBe('nan|WIDGET');
    const all = await shownHits();
    expect(all).toEqual(cliHits({ grep: 'nan|WIDGET' }));
    expect(all).toEqual(expect.arrayContaining(['demo:1', 'recent:1']));

    // since as forge log --since takes it: relative ("2 weeks ago", which the API refused before), and ISO.
    for (const f of [
      { grep: 'nan|WIDGET', since: '2 weeks ago' },
      { grep: 'nan|WIDGET', since: '3.days.ago' },
      { grep: 'nan|WIDGET', since: '2023-12-31' },
      { grep: 'nan|WIDGET', since: new Date(Date.now() - 3 * 86400_000).toISOString() },
    ]) {
      await search(f);
      expect(await shownHits(), f.since).toEqual(cliHits(f));
    }
    await search({ grep: 'nan|WIDGET', since: '2 weeks ago' });
    expect(await shownHits()).toEqual(['recent:1']);
    await shot('review-search-fields');

    // Case: off by default (as -i), on when asked, for the text and for the author.
    await search({ grep: 'nan|WIDGET', matchCase: true });
    expect(await shownHits()).toEqual(cliHits({ grep: 'nan|WIDGET', matchCase: true }));
    expect(await shownHits()).not.toContain('recent:1');
    await search({ author: 'bo recent' });
    expect(await shownHits()).toEqual(cliHits({ author: 'bo recent' }));
    expect(await shownHits()).toEqual(['recent:1']);
    await search({ author: 'bo recent', matchCase: true });
    expect(await shownHits()).toEqual([]);
    expect(cliHits({ author: 'bo recent', matchCase: true })).toEqual([]);
    await search({ author: 'Bo Recent', matchCase: true, since: '2 weeks ago' });
    expect(await shownHits()).toEqual(['recent:1']);

    // The search is in the address: a reload gives the same fields and hits.
    await page.reload();
    await page.waitForSelector('#app[data-loaded="search"]');
    expect(await page.locator('form.search-form input[name="author"]').inputValue()).toBe('Bo Recent');
    expect(await page.locator('form.search-form input[name="since"]').inputValue()).toBe('2 weeks ago');
    expect(await page.locator('form.search-form input[name="case"]').isChecked()).toBe(true);
    expect(await shownHits()).toEqual(['recent:1']);

    // A date forge log --since refuses is refused, saying what it takes.
    await search({ grep: 'widget', since: 'someday' });
    expect(await page.locator('#app p.refused').textContent()).toContain('since "someday" is not a date');
    expect(forge(['log', '--repo', repo.dir, '--grep', 'widget', '--since', 'someday']).status).toBe(2);
  });

  it('shows the session diff against the target chosen in the merge panel, and says which', async () => {
    // A branch at demo's first turn: against it, the session's changes are its second turn's.
    git(repo.dir, ['branch', 'halfway', 'forge/session/demo~1']);
    try {
      await open('#/s/demo', 'timeline');
      const diff = page.locator('.session-diff');
      await page.waitForSelector('.session-diff[data-loaded="true"][data-target="main"]');
      expect(await page.locator('select.target').inputValue()).toBe('main');
      expect(await diff.locator('h3').textContent()).toContain('since the session started');
      expect(await diff.locator('h3').textContent()).toContain('merged into main');
      expect(await page.locator('p.to-files a').textContent()).toBe('Files changed against main ↓');

      await page.locator('select.target').selectOption('halfway');
      await page.waitForSelector('.session-diff[data-loaded="true"][data-target="halfway"]');
      const base = git(repo.dir, ['merge-base', 'halfway', 'forge/session/demo']).stdout.trim();
      expect(await diff.locator('h3').textContent()).toContain(`against halfway (merge base ${base.slice(0, 10)})`);
      expect(await page.locator('p.to-files a').textContent()).toBe('Files changed against halfway ↓');
      // git diff halfway...demo is the oracle for the files.
      const expected = git(repo.dir, ['diff', '--name-only', 'halfway...forge/session/demo', '--', '.', ':!.forge']).stdout.trim().split('\n');
      expect(expected).toEqual(['CHANGELOG.md']);
      expect(await diff.locator('ul.file-list a.jump').allTextContents()).toEqual(expected);
      // The merge preview is about the same branch.
      await expect.poll(() => page.locator('.preview-result .outcome').textContent()).toMatch(/Clean: (merging into halfway would succeed|halfway would fast-forward)/);
      await shot('review-session-diff-target');

      // A live refresh (the session branch moves under the page) keeps the reviewer's target.
      const demoHead = rev('forge/session/demo');
      git(repo.dir, ['update-ref', 'refs/heads/forge/session/demo', 'halfway']);
      await expect.poll(() => diff.locator('h3').textContent(), { timeout: 15_000 }).toContain('since the session started');
      expect(await page.locator('select.target').inputValue()).toBe('halfway');
      expect(await diff.locator('h3').textContent()).toContain('merged into halfway');
      git(repo.dir, ['update-ref', 'refs/heads/forge/session/demo', demoHead]);
      await expect.poll(() => diff.locator('h3').textContent(), { timeout: 15_000 }).toContain('against halfway');
      expect(await page.locator('select.target').inputValue()).toBe('halfway');
      expect(await diff.locator('ul.file-list a.jump').allTextContents()).toEqual(expected);

      // Back to main: the diff follows again.
      await page.locator('select.target').selectOption('main');
      await page.waitForSelector('.session-diff[data-loaded="true"][data-target="main"]');
      expect(await diff.locator('h3').textContent()).toContain('since the session started');
      expect((await diff.locator('ul.file-list a.jump').allTextContents()).sort()).toEqual(['CHANGELOG.md', 'src/math.js', 'test/math.test.js']);
    } finally {
      git(repo.dir, ['branch', '-D', 'halfway']);
    }
    expectFsckClean(repo.gitdir);
  });

  it('disables Merge on a conflicting preview, repeats the verdict in the confirmation, and marks the session merged after', async () => {
    await open('#/s/conflict', 'timeline');
    await expect.poll(() => page.locator('.preview-result .outcome').textContent()).toContain('Conflict');
    expect(await page.locator('button.merge').isDisabled()).toBe(true);
    // demo is merged already: marked so, nothing to merge.
    await open('#/s/demo', 'timeline');
    expect(await page.locator('.session-head .badge.merged').textContent()).toBe('merged into main');
    await expect.poll(() => page.locator('.preview-result .outcome').textContent()).toContain('Already up to date');
    expect(await page.locator('button.merge').isDisabled()).toBe(true);

    await open('#/s/review', 'timeline');
    expect(await page.locator('.session-head .badge.merged').count()).toBe(0);
    await expect.poll(() => page.locator('.preview-result .outcome').textContent()).toContain('Clean: merging into main would succeed');
    await expect.poll(() => page.locator('button.merge').isDisabled()).toBe(false);
    await page.click('button.merge');
    const dialog = page.locator('dialog#confirm');
    expect(await dialog.locator('.verdict').textContent()).toContain('The preview said: Clean: merging into main would succeed');
    await dialog.locator('button.primary').click();
    const commit = (await dialog.locator('.result .result-commit').textContent({ timeout: 15_000 }))!;
    expect(rev('main')).toBe(commit);
    await dialog.locator('button', { hasText: 'Close' }).click();
    await expect.poll(() => page.locator('.session-head .badge.merged').count(), { timeout: 15_000 }).toBe(1);
    // Merged, its diff is what it changed since it started (against main there is nothing left).
    await page.waitForSelector('.session-diff[data-loaded="true"]');
    expect(await page.locator('.session-diff h3').textContent()).toContain('since the session started');
    expect(await page.locator('.session-diff ul.file-list a.jump').allTextContents()).toEqual(expect.arrayContaining(['big/generated.txt', 'more.txt', HOSTILE_PATH]));
    expectFsckClean(repo.gitdir);
  });

  it('says so when the branch is rewound under the page instead of silently losing turns', async () => {
    await open('#/s/review', 'timeline');
    expect(await page.locator('article.turn[data-turn="2"]').count()).toBe(1);
    const lost = rev('forge/session/review');
    git(repo.dir, ['update-ref', 'refs/heads/forge/session/review', 'forge/session/review~1']);
    await page.waitForSelector('.rewound', { timeout: 15_000 });
    expect(await page.locator('.rewound').textContent()).toContain(`turn 2 (${lost.slice(0, 10)})`);
    expect(await page.locator('article.turn[data-turn="2"]').count()).toBe(0);
  });
});
