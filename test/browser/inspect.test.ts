/**
 * `forge inspect` end to end in a real browser (Debian's chromium driven by playwright-core, no
 * browser download) on `npm run demo`'s repository plus a session that conflicts with main.
 * Everything is checked as a person sees it on the page; what the page changed is read back with
 * the git CLI and `git fsck --strict`. Screenshots of the main views go to .tmp/screenshots/inspect
 * (FORGE_SCREENSHOT_DIR to change it).
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { forge } from '../helpers/forge-cli';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';
import { CHROMIUM_PATH, chromiumProblem, chromiumSkipped } from './chromium.mjs';
import { buildInspectRepo, README_IN_SESSION, README_ON_MAIN, startInspector, type InspectRepo, type RunningInspector } from './inspect-fixture';

const SHOTS = resolve(process.env.FORGE_SCREENSHOT_DIR ?? '.tmp/screenshots/inspect');

let repo: InspectRepo;
let inspector: RunningInspector;
let browser: Browser;
let page: Page;

const rev = (ref: string) => git(repo.dir, ['rev-parse', ref]).stdout.trim();

async function open(hash: string, loaded: string): Promise<void> {
  await page.goto(`${inspector.url}${hash}`);
  await page.waitForSelector(`#app[data-loaded="${loaded}"]`);
}

async function shot(name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

beforeAll(async () => {
  if (chromiumSkipped()) return;
  const problem = chromiumProblem();
  if (problem) throw new Error(problem);
  repo = buildInspectRepo(makeTempDir('inspect'));
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

describe.skipIf(chromiumSkipped())('forge inspect in chromium', () => {
  it('lists every session with its base, turns, head and whether it merges cleanly', async () => {
    await open('#/', 'sessions');
    const demo = page.locator('tr[data-session="demo"]');
    const conflict = page.locator('tr[data-session="conflict"]');
    await expect.poll(() => demo.locator('.merge').textContent()).toBe('merges cleanly');
    await expect.poll(() => conflict.locator('.merge').textContent()).toBe('conflict (1 path)');
    expect(await demo.locator('td').nth(3).textContent()).toBe('2');
    expect(await demo.locator('td').nth(4).textContent()).toBe(rev('forge/session/demo').slice(0, 10));
    expect(await demo.locator('td.title').textContent()).toContain('average([]) returns NaN');
    await shot('sessions');

    // Filters: by text, and by state.
    await page.fill('input.filter', 'calculator');
    expect(await demo.isHidden()).toBe(true);
    expect(await conflict.isVisible()).toBe(true);
    await page.fill('input.filter', '');
    await page.selectOption('select.state', 'conflict');
    expect(await demo.isHidden()).toBe(true);
    expect(await conflict.isVisible()).toBe(true);
  });

  it("shows the demo session's timeline: turns, messages, tool calls with results, files with counts", async () => {
    await open('#/s/demo', 'timeline');
    const turns = page.locator('article.turn');
    expect(await turns.count()).toBe(3);
    const first = page.locator('article.turn[data-turn="1"]');
    expect(await first.locator('.msg.user').textContent()).toContain('Make it return 0 for an empty list');
    expect(await first.locator('.msg.assistant').first().textContent()).toContain("I'll run the test suite first");
    const tools = await first.locator('.tool-call .tool-name').allTextContents();
    expect(tools).toEqual(expect.arrayContaining(['run_command', 'read_file', 'Patch', 'Edit']));
    expect(await first.locator('ul.files li').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^src\/math\.js \+\d+ -\d+$/), expect.stringMatching(/^test\/math\.test\.js \+\d+ -0$/)]));
    expect(await page.locator('article.turn[data-turn="2"] ul.files li').allTextContents()).toEqual([expect.stringMatching(/^CHANGELOG\.md \+\d+ -0$/)]);
    // The undo point is the last edit's turn; every commit offers a resume.
    expect(await page.locator('article.turn[data-turn="2"] .undo-point').count()).toBe(1);
    expect(await page.locator('button.resume').count()).toBe(3);
    // A tool call's arguments and result are there when their fold opens, field by field (not a JSON blob).
    const read = first.locator('.tool-call[data-tool="read_file"]').first();
    await read.locator('summary', { hasText: 'arguments' }).click();
    expect(await read.locator('pre.args').textContent()).toBe(`path: ${await read.locator('.tool-head .path').textContent()}`);
    await read.locator('summary', { hasText: 'arguments' }).click();
    await shot('timeline');
  });

  it("shows a turn's conversation beside its diff, unified and side by side", async () => {
    const turn1 = rev('forge/session/demo~1');
    await open(`#/c/${turn1}`, 'turn');
    expect(await page.locator('.conversation .msg.user.current').first().textContent()).toContain('average([]) returns NaN');
    const math = page.locator('section.file[data-path="src/math.js"]');
    await expect.poll(async () => (await math.locator('.d2h-del .d2h-code-line-ctn').allTextContents()).join('\n')).toContain('// TODO: an empty list gives NaN');
    expect((await math.locator('.d2h-ins .d2h-code-line-ctn').allTextContents()).join('\n')).toContain('if (values.length === 0) return 0;');
    await page.waitForSelector('.diff[data-coloured="true"]');
    expect(await math.locator('.hljs-keyword').count()).toBeGreaterThan(0);
    await shot('turn-unified');
    await page.click('button[data-layout="side-by-side"]');
    await page.waitForSelector('.diff[data-layout="side-by-side"] .d2h-file-side-diff');
    expect(await page.locator('section.file[data-path="src/math.js"] .d2h-file-side-diff').count()).toBe(2);
    await shot('turn-side-by-side');
  });

  it('shows a CRLF file with its line endings', async () => {
    await open(`#/c/${rev('forge/session/conflict')}`, 'turn');
    const notes = page.locator('section.file[data-path="notes/windows.txt"]');
    expect(await notes.locator('.badge.crlf').textContent()).toBe('CRLF');
    expect((await notes.locator('.d2h-ins').allTextContents()).join('\n')).toContain('first line␍');
  });

  it('travels in time: a file as of the session start differs from the head', async () => {
    const start = rev('forge/session/demo~2');
    await open(`#/tree/${start}/src/math.js`, 'tree');
    const then = await page.locator('.file-view pre.content').textContent();
    expect(then).toContain('TODO: an empty list gives NaN');
    expect(await page.locator('ul.tree a').allTextContents()).not.toContain('CHANGELOG.md');
    await shot('files-at-start');
    await open(`#/tree/${rev('forge/session/demo')}/src/math.js`, 'tree');
    const now = await page.locator('.file-view pre.content').textContent();
    expect(now).not.toContain('TODO: an empty list gives NaN');
    expect(now).not.toBe(then);
    expect(await page.locator('ul.tree a').allTextContents()).toContain('CHANGELOG.md');
    // Compare any two commits.
    await open(`#/compare/${start}/${rev('forge/session/demo')}`, 'compare');
    expect(await page.locator('section.file').evaluateAll((s) => s.map((e) => (e as HTMLElement).dataset.path))).toEqual(['CHANGELOG.md', 'src/math.js', 'test/math.test.js']);
  });

  it("shows the conflict session's merge preview: the path, its kind and both sides of the hunk", async () => {
    await open('#/s/conflict', 'timeline');
    const report = page.locator('.preview-result');
    await expect.poll(() => report.locator('.outcome').textContent()).toContain('Conflict: 1 conflicted path(s) merging into main');
    const c = report.locator('section.conflict[data-path="README.md"]');
    expect(await c.locator('.badge.kind').textContent()).toBe('content');
    expect(await c.locator('.side').nth(1).textContent()).toContain(README_ON_MAIN);
    expect(await c.locator('.side').nth(2).textContent()).toContain(README_IN_SESSION);
    await shot('merge-preview-conflict');
  });

  it('refuses a state-changing request without the access cookie or the token, or for another host, and moves nothing', async () => {
    const before = rev('main');
    const body = JSON.stringify({ into: 'main', head: rev('forge/session/demo'), targetHead: before });
    const noCookie = await fetch(`${inspector.origin}api/sessions/demo/merge`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(noCookie.status).toBe(403);
    expect(((await noCookie.json()) as { error: { code: string } }).error.code).toBe('INSPECT_ACCESS_DENIED');
    // The page's cookie (HttpOnly: read here through the browser's cookie jar, not by a script).
    const [jar] = await page.context().cookies(inspector.origin);
    const cookie = `${jar!.name}=${jar!.value}`;
    const noToken = await fetch(`${inspector.origin}api/sessions/demo/merge`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body });
    expect(noToken.status).toBe(403);
    expect(((await noToken.json()) as { error: { code: string } }).error.code).toBe('INSPECT_TOKEN_INVALID');
    const wrongToken = await fetch(`${inspector.origin}api/sessions/demo/merge`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, 'x-forge-token': 'guess' }, body });
    expect(wrongToken.status).toBe(403);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    // A script of another origin (localhost is not 127.0.0.1 to the browser) that tries a token:
    // the browser asks first (CORS preflight), the server grants nothing, the request is never sent.
    const foreign = await page.evaluate(async (url) => {
      try {
        await fetch(`${url}api/sessions/demo/merge`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forge-token': 'guess' }, body: '{"into":"main"}' });
        return 'sent';
      } catch (error) {
        return (error as Error).name;
      }
    }, inspector.origin.replace('127.0.0.1', 'localhost'));
    expect(foreign).toBe('TypeError');
    const port = new URL(inspector.origin).port;
    const rebound = await new Promise<number>((done) => {
      // fetch() will not send a forged Host header; node's http will (a DNS-rebinding page's request looks like this).
      void import('node:http').then(({ request }) => {
        const req = request({ host: '127.0.0.1', port, path: '/api/branches', headers: { host: `attacker.example:${port}` } }, (res) => done(res.statusCode ?? 0));
        req.end();
      });
    });
    expect(rebound).toBe(403);
    expect(rev('main')).toBe(before);
    expect(rev('forge/session/demo')).not.toBe(before);
  });

  it('shows a turn committed by another process without a reload', async () => {
    await open('#/s/demo', 'timeline');
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    // A fold left open stays open: the turns that did not change are not drawn again.
    const fold = page.locator('article.turn[data-turn="1"] .tool-call').first().locator('details').first();
    await fold.locator('summary').click();
    const calls = [
      { tool: 'read_file', args: { path: 'CHANGELOG.md' } },
      { tool: 'Patch', args: { path: 'CHANGELOG.md', patches: [{ operation: 'append_eof', newText: '- Live from another process.\n' }] } },
    ];
    const run = forge(['turn', '--repo', repo.dir, '--session', 'demo', '--calls', '-', '--message', 'A live turn'], { input: JSON.stringify(calls) });
    expect(run.status, run.stderr).toBe(0);
    await page.waitForSelector('article.turn[data-turn="3"]', { timeout: 15_000 });
    expect(await page.locator('article.turn[data-turn="3"] .summary').textContent()).toBe('A live turn');
    expect(await fold.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
    // The undo point moved to the new turn.
    expect(await page.locator('.undo-point').count()).toBe(1);
    expect(await page.locator('article.turn[data-turn="3"] .undo-point').count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
  });

  it('issue 24: a turn committed while the merge dialog is open makes Confirm fail, naming the new head', async () => {
    const mainBefore = rev('main');
    const shownHead = rev('forge/session/demo');
    await open('#/s/demo', 'timeline');
    await expect.poll(() => page.locator('.preview-result .outcome').textContent()).toContain('Clean: merging into main would succeed');
    await page.click('button.merge');
    const dialog = page.locator('dialog#confirm');
    expect(await dialog.locator('.explain').textContent()).toContain(`head ${shownHead.slice(0, 10)}`);
    const calls = [
      { tool: 'read_file', args: { path: 'CHANGELOG.md' } },
      { tool: 'Patch', args: { path: 'CHANGELOG.md', patches: [{ operation: 'append_eof', newText: '- Landed while the dialog was open.\n' }] } },
    ];
    const run = forge(['turn', '--repo', repo.dir, '--session', 'demo', '--calls', '-', '--message', 'An unseen turn'], { input: JSON.stringify(calls) });
    expect(run.status, run.stderr).toBe(0);
    const newHead = rev('forge/session/demo');
    // The live update names the session: the open dialog says it moved, with the new head.
    expect(await dialog.locator('.moved .new-head').textContent({ timeout: 15_000 })).toBe(newHead.slice(0, 10));
    await shot('merge-confirm-moved');
    await dialog.locator('button.primary').click();
    await dialog.locator('.result .refused').waitFor({ timeout: 15_000 });
    const refusal = (await dialog.locator('.result .refused').textContent())!;
    expect(refusal).toContain('error REF_CAS_FAILED');
    expect(refusal).toContain(`its head is now ${newHead}`);
    expect(rev('main')).toBe(mainBefore);
    await dialog.locator('button', { hasText: 'Close' }).click();
  });

  it('merges the demo session into main from the page, after a confirmation, and reports the commit', async () => {
    const mainBefore = rev('main');
    const demoHead = rev('forge/session/demo');
    await open('#/s/demo', 'timeline');
    await expect.poll(() => page.locator('.preview-result .outcome').textContent()).toContain('Clean: merging into main would succeed');
    await page.click('button.merge');
    const dialog = page.locator('dialog#confirm');
    expect(await dialog.locator('.explain').textContent()).toContain('Moves branch main');
    expect(rev('main')).toBe(mainBefore);
    await shot('merge-confirm');
    await dialog.locator('button.primary').click();
    const commit = (await dialog.locator('.result .result-commit').textContent({ timeout: 15_000 }))!;
    expect(await dialog.locator('.result').textContent()).toContain('Merged into main: commit');
    expect(rev('main')).toBe(commit);
    expect(git(repo.dir, ['rev-parse', 'main^1', 'main^2']).stdout.trim().split('\n')).toEqual([mainBefore, demoHead]);
    expect(git(repo.dir, ['show', 'main:src/math.js']).stdout).toBe(git(repo.dir, ['show', `${demoHead}:src/math.js`]).stdout);
    expect(git(repo.dir, ['status', '--porcelain']).stdout).toBe('');
    expectFsckClean(repo.gitdir);
  });
});
