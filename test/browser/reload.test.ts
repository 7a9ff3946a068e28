/**
 * Issue 25, case 1: in the browser, what Forge reports done survives a reload. Headless Chromium
 * on lightning-fs (IndexedDB) through the shipped dist/browser.js: the page is reloaded right after
 * a turn commit and right after a pending edit (no waiting: lightning-fs would have saved its
 * directory tree 500 ms later), then reopened; the turn is committed, the edit pending and
 * writable; a second tab is refused while the first lives (its lease is a Web Lock, let go of
 * with the tab). The exported repository passes git fsck and git reads both turns back.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';
import { chromiumSkipped, openHarness, type Harness } from './chromium.mjs';
import { fromBase64, scenarioBaseFiles, toBase64, writeDir } from './repo-files';

const DB = 'reload';
const GITDIR = '/repo.git';

describe.skipIf(chromiumSkipped())('issue 25: a reload right after a commit or an edit loses nothing, in Chromium', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await openHarness();
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  it('a turn committed right before a reload is there; a pending edit comes back pending and writable; a second live tab is refused', async () => {
    // A repository created in this page, a session, a committed turn, then at once a reload.
    const { turn } = await harness.call<{ turn: string }>('commitTurnNow', DB, GITDIR, toBase64(scenarioBaseFiles()));
    await harness.reload();
    expect(await harness.call('branchNow', DB, GITDIR)).toEqual({ head: turn, text: 'alpha\nbeta, committed\ngamma\n' });

    // An edit left pending (journaled, the lease taken), then at once a reload.
    await harness.call('editPendingNow', DB, GITDIR);
    await harness.reload();
    expect(await harness.call('reopenPending', DB, GITDIR)).toEqual({ pending: ['src/b.txt'], text: 'one\ntwo, pending\n' });

    // The reloaded tab holds the session again: another live tab cannot write to it.
    const second = await harness.newTab();
    expect(await second.call('tryToWrite', DB, GITDIR)).toBe('SESSION_BUSY');
    await second.close();

    // And the reloaded tab's pending edit is writable: one more edit, then the turn.
    const after = await harness.call<{ turn: string }>('writeAndCommit');
    const exported = join(makeTempDir('reload-export'), 'repo.git');
    writeDir(exported, fromBase64(await harness.call<Record<string, string>>('dump', DB, GITDIR)));
    expectFsckClean(exported);
    expect(git(exported, ['rev-parse', 'refs/heads/forge/session/reload']).stdout.trim()).toBe(after.turn);
    expect(git(exported, ['rev-parse', `${after.turn}^`]).stdout.trim()).toBe(turn);
    expect(git(exported, ['show', `${after.turn}:src/b.txt`]).stdout).toBe('one, after the reload\ntwo, pending\n');
    expect(git(exported, ['show', `${after.turn}:src/a.txt`]).stdout).toBe('alpha\nbeta, committed\ngamma\n');
  }, 180_000);
});
