/**
 * The README's browser path, for real: in headless Chromium, an empty IndexedDB, a clone with
 * isomorphic-git's http/web client over git's smart HTTP (git http-backend), then a session on
 * the clone whose turn git reads back; the cloned repository, with the engine's commit, passes
 * `git fsck --strict`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';
import { chromiumSkipped, openHarness, type Harness } from './chromium.mjs';
import { fromBase64, writeDir } from './repo-files';
import { SCENARIO_FILES } from './scenario';

describe.skipIf(chromiumSkipped())('empty IndexedDB -> isomorphic-git clone over HTTP -> forge session, in Chromium', () => {
  let harness: Harness;
  let served: { gitdir: string; head: string };

  beforeAll(async () => {
    served = makeRepo({ files: SCENARIO_FILES, bare: true });
    harness = await openHarness({ gitRoot: dirname(served.gitdir) });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  it('clones, commits a turn on the clone, and git reads the result back', async () => {
    const url = `${harness.origin}/git/${served.gitdir.split('/').pop()}`;
    const result = await harness.call<{ head: string; turn: string; files: Record<string, string> }>('cloneAndWork', 'clone-test', url);
    expect(result.head).toBe(served.head);
    const exported = join(makeTempDir('clone-export'), 'repo.git');
    writeDir(exported, fromBase64(result.files));
    writeFileSync(join(exported, 'config'), readFileSync(join(exported, 'config'), 'utf8').replace(/bare = false/, 'bare = true'));
    expectFsckClean(exported);
    // The session's first commit (its state file) on the cloned head, then the turn.
    expect(git(exported, ['rev-parse', `${result.turn}~2`]).stdout.trim()).toBe(served.head);
    expect(git(exported, ['rev-parse', 'refs/heads/forge/session/cloned']).stdout.trim()).toBe(result.turn);
    expect(git(exported, ['show', `${result.turn}:src/a.txt`]).stdout).toBe('alpha\nbeta, edited in the browser\ngamma\n');
    expect(git(exported, ['diff', '--name-only', served.head, result.turn]).stdout.split('\n').filter(Boolean).sort()).toEqual(['.forge/sessions/cloned.json', 'src/a.txt']);
  }, 180_000);
});
