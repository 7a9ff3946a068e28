/**
 * Same bytes everywhere (issue 15): one scripted session history (test/browser/scenario.ts) with
 * a fixed clock and identity, run in Node on disk, in Node on memfs, in Node on lightning-fs (over
 * fake-indexeddb, the portable platform), and in headless Chromium on
 * lightning-fs (IndexedDB) through the shipped dist/browser.js. Every ref, commit, tree and blob
 * oid must be identical, the error cases must give the same codes, and every repository passes
 * `git fsck --strict`; the one exported from the browser reads back with the git CLI byte for
 * byte as the one Node wrote on disk.
 */
import 'fake-indexeddb/auto';
import { join } from 'node:path';
import LightningFS from '@isomorphic-git/lightning-fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as forge from '../../src/browser';
import { nodePlatform } from '../../src/git/node/platform';
import * as nodeFs from 'node:fs';
import { exportGitdir } from '../helpers/engine-repos';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeTempDir } from '../helpers/temp';
import { chromiumSkipped, openHarness, type Harness } from './chromium.mjs';
import { fromBase64, memfsWith, scenarioBaseFiles, toBase64, writeDir, type FileMap } from './repo-files';
import { runScenario, type ScenarioOutcome } from './scenario';

const GITDIR = '/repo.git';

// lightning-fs reads navigator.locks to pick its mutex; Node 20 has no navigator.
if (typeof (globalThis as { navigator?: unknown }).navigator === 'undefined') vi.stubGlobal('navigator', {});
const EXPECTED_ERRORS = {
  hostilePathDotDot: 'PATH_ESCAPES_ROOT',
  hostilePathGitDir: 'PATH_GIT_DIR',
  staleFile: 'STALE_FILE',
  heldRefLock: 'REF_LOCKED',
  lostCompareAndSwap: 'REF_CAS_FAILED',
  missingObject: 'OBJECT_NOT_FOUND',
  missingRevision: 'REF_NOT_FOUND',
};

/** Every reachable object of every ref, as the git CLI prints it: the bytes to compare. */
function catAll(gitdir: string): Buffer {
  const objects = git(gitdir, ['rev-list', '--objects', '--all']).stdout;
  const oids = objects.split('\n').filter(Boolean).map((line) => line.split(' ')[0]).sort().join('\n') + '\n';
  return git(gitdir, ['cat-file', '--batch'], { input: oids }).stdoutBuffer;
}

function expectSameAs(outcome: ScenarioOutcome, reference: ScenarioOutcome): void {
  expect(outcome.refs).toEqual(reference.refs);
  expect(outcome.steps).toEqual(reference.steps);
  expect(outcome.objects).toEqual(reference.objects);
  expect(outcome.errors).toEqual(reference.errors);
  expect(outcome.mainFiles).toEqual(reference.mainFiles);
}

describe('the same session history gives the same bytes on Node disk, Node memfs and Chromium', () => {
  let base: FileMap;
  let onDisk: { outcome: ScenarioOutcome; gitdir: string };

  beforeAll(async () => {
    base = scenarioBaseFiles();
    const gitdir = join(makeTempDir('same-bytes-disk'), 'repo.git');
    writeDir(gitdir, base);
    onDisk = { outcome: await runScenario(forge, nodeFs as unknown as forge.GitFs, gitdir, nodePlatform), gitdir };
  });

  it('Node on disk: the history is what the script says, the errors have their codes, git fsck --strict is clean', () => {
    const { outcome, gitdir } = onDisk;
    expect(outcome.errors).toEqual(EXPECTED_ERRORS);
    expect(outcome.mainFiles['src/crlf.txt']).toBe('first line\r\nsecond line, edited\r\nan added line\r\nthird line\r\n');
    expect(outcome.mainFiles['src/a.txt']).toBe('alpha\nBETA\nGAMMA\ndelta\n');
    expect(outcome.mainFiles['src/new/deep/file.txt']).toBe('created in a new directory\n');
    expect(outcome.mainFiles['docs/readme.md']).toBe('# Readme\n\nSome better words.\n');
    expect(outcome.mainFiles['src/b.txt']).toBeUndefined();
    expect(outcome.mainFiles['scratch.txt']).toBeUndefined();
    // Two merge commits on main, and gamma replayed onto it.
    expect(git(gitdir, ['rev-list', '--merges', '--count', 'main']).stdout.trim()).toBe('2');
    expect(git(gitdir, ['merge-base', 'main', 'forge/session/gamma']).stdout.trim()).toBe(outcome.steps.mergeBeta);
    expect(git(gitdir, ['show', 'forge/session/gamma:src/c.txt']).stdout).toBe('c content, rewritten\n');
    expectFsckClean(gitdir);
  });

  it('Node on memfs: identical oids and error codes', async () => {
    const fs = memfsWith(GITDIR, base);
    const outcome = await runScenario(forge, fs, GITDIR, nodePlatform);
    expectSameAs(outcome, onDisk.outcome);
    const exported = exportGitdir(fs, GITDIR);
    expectFsckClean(exported);
    expect(catAll(exported).equals(catAll(onDisk.gitdir))).toBe(true);
  });

  it('Node on lightning-fs (fake-indexeddb) with the portable platform: identical oids and error codes', async () => {
    const fs = new LightningFS(`same-bytes-${process.pid}`, { wipe: true }) as unknown as forge.GitFs;
    for (const [rel, bytes] of Object.entries(base)) {
      await forge.mkdirp(fs, `${GITDIR}/${rel}`.slice(0, `${GITDIR}/${rel}`.lastIndexOf('/')));
      await fs.promises.writeFile(`${GITDIR}/${rel}`, bytes);
    }
    for (const dir of ['refs', 'objects']) await forge.mkdirp(fs, `${GITDIR}/${dir}`);
    expectSameAs(await runScenario(forge, fs, GITDIR), onDisk.outcome);
  });

  describe.skipIf(chromiumSkipped())('headless Chromium on lightning-fs (IndexedDB)', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await openHarness();
    }, 120_000);
    afterAll(async () => {
      await harness?.close();
    });

    it('identical oids and error codes; the exported repository passes fsck and git reads it back byte for byte', async () => {
      const result = await harness.call<{ outcome: ScenarioOutcome; files: Record<string, string> }>('scenario', 'same-bytes', GITDIR, toBase64(base));
      expectSameAs(result.outcome, onDisk.outcome);
      const exported = join(makeTempDir('same-bytes-browser'), 'repo.git');
      writeDir(exported, fromBase64(result.files));
      expectFsckClean(exported);
      expect(catAll(exported).equals(catAll(onDisk.gitdir))).toBe(true);
      for (const { ref, oid } of onDisk.outcome.refs) expect(git(exported, ['rev-parse', ref]).stdout.trim()).toBe(oid);
    }, 180_000);
  });
});
