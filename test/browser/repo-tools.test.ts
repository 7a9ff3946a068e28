/**
 * Repository tools in the browser entry (issue 18, "the same sandbox package works there"): the
 * scenario of repo-tools-scenario.ts (approve two tools through the library, a session calls the
 * approved one, which edits a file, an unapproved one is refused, an infinite loop is stopped at
 * the time limit, the turn commits) gives the same commits, trees and blobs in Node on disk, in
 * Node on memfs with the .wasm handed over as bytes, and in headless Chromium on lightning-fs
 * (IndexedDB) through the shipped dist/browser.js: once with QuickJS imported by the bundle itself
 * (an import map resolves its bare import()s to the packages' own files), once with the page's own
 * copy of the packages and a compiled WebAssembly.Module passed as options.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as forge from '../../src/browser';
import { QuickJsSandbox } from '../../src/browser-repo-tools';
import { nodePlatform } from '../../src/git/node/platform';
import * as nodeFs from 'node:fs';
import { exportGitdir } from '../helpers/engine-repos';
import { expectFsckClean } from '../helpers/fsck';
import { git } from '../helpers/git-cli';
import { makeRepo } from '../helpers/repos';
import { makeTempDir } from '../helpers/temp';
import { chromiumSkipped, openHarness, type Harness } from './chromium.mjs';
import { fromBase64, memfsWith, readDir, toBase64, writeDir, type FileMap } from './repo-files';
import { REPO_TOOL_FILES, SPIN_LIMIT_MS, runRepoToolScenario, type RepoToolOutcome } from './repo-tools-scenario';

const GITDIR = '/repo.git';
const WASM = 'node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm';
/** What the stopped loop may cost beyond its limit (the module is loaded by then): a slow machine. */
const SPIN_SLACK_MS = 1000;

/** A bare repository with the tools on main, fully packed (the browser reads packs asynchronously). */
function baseFiles(): FileMap {
  const repo = makeRepo({ files: REPO_TOOL_FILES, bare: true });
  git(repo.gitdir, ['repack', '-adq']);
  git(repo.gitdir, ['prune-packed']);
  return readDir(repo.gitdir);
}

/** Everything but the loop's duration, which no two runs share. */
function comparable(outcome: RepoToolOutcome): Omit<RepoToolOutcome, 'spinMs'> {
  const { spinMs: _spinMs, ...rest } = outcome;
  return rest;
}

function expectStoppedInTime(outcome: RepoToolOutcome): void {
  expect(outcome.spinMs).toBeGreaterThanOrEqual(SPIN_LIMIT_MS - 5);
  expect(outcome.spinMs).toBeLessThan(SPIN_LIMIT_MS + SPIN_SLACK_MS);
}

describe('repository tools give the same commits in Node and in Chromium', () => {
  let base: FileMap;
  let onDisk: { outcome: RepoToolOutcome; gitdir: string };

  beforeAll(async () => {
    base = baseFiles();
    const gitdir = join(makeTempDir('repo-tools-disk'), 'repo.git');
    writeDir(gitdir, base);
    const outcome = await runRepoToolScenario(forge, nodeFs as unknown as forge.GitFs, gitdir, new QuickJsSandbox(), nodePlatform);
    onDisk = { outcome, gitdir };
  }, 120_000);

  it('Node on disk: the tool edited the file, the others were refused or stopped, approvals hold one file, fsck is clean', async () => {
    const { outcome, gitdir } = onDisk;
    expect(outcome.states).toEqual(['lower:unapproved', 'spin:approved', 'upper:approved']);
    expect(outcome.upperOutput).toEqual({ result: { path: 'src/a.txt', bytes: 11, neighbours: ['a.txt', 'b.txt'] } });
    expect(outcome.files).toEqual({ 'src/a.txt': 'ALPHA\nBETA\n', 'src/b.txt': 'untouched\n', 'src/sizes.bin': '11,2,0,255' });
    const lowerSha = await forge.Repository.open({ fs: nodeFs as unknown as forge.GitFs, gitdir, platform: nodePlatform }).then((r) =>
      r.sha256Hex(new TextEncoder().encode(REPO_TOOL_FILES['tools/lower.js'])),
    );
    expect(outcome.errors.unapproved).toMatchObject({ code: 'TOOL_NOT_APPROVED', data: { tool: 'lower', sha256: lowerSha, approvedSha256: null } });
    expect(outcome.errors.spin).toMatchObject({ code: 'REPO_TOOL_TIMEOUT', data: { limit_ms: SPIN_LIMIT_MS } });
    expectStoppedInTime(outcome);
    // The loop's write before it was stopped is gone; the turn holds the approved tool's edits alone.
    expect(outcome.partialLeft).toBe(false);
    expect(outcome.pendingAfterCalls).toEqual(['added src/sizes.bin', 'modified src/a.txt']);
    for (const name of ['upper', 'spin']) {
      const commit = outcome.steps[`approve_${name}`];
      expect(git(gitdir, ['diff-tree', '--no-commit-id', '--name-only', '-r', commit]).stdout.trim()).toBe(forge.APPROVALS_PATH);
    }
    expect(git(gitdir, ['rev-parse', 'main']).stdout.trim()).toBe(outcome.steps.approve_spin);
    expect(git(gitdir, ['show', `${outcome.steps.turn}:src/a.txt`]).stdout).toBe('ALPHA\nBETA\n');
    expect(git(gitdir, ['rev-parse', `${outcome.steps.turn}^{tree}`]).stdout.trim()).toBe(outcome.tree);
    expect(git(gitdir, ['rev-parse', `${outcome.steps.turn}:src/a.txt`]).stdout.trim()).toBe(outcome.blobs['src/a.txt']);
    expectFsckClean(gitdir);
  });

  it('Node on memfs, the .wasm passed as bytes (QuickJsSandbox\'s wasm option): identical oids', async () => {
    const fs = memfsWith(GITDIR, base);
    const sandbox = new QuickJsSandbox({ wasm: new Uint8Array(readFileSync(WASM)) });
    const outcome = await runRepoToolScenario(forge, fs, GITDIR, sandbox, nodePlatform);
    expect(comparable(outcome)).toEqual(comparable(onDisk.outcome));
    expectFsckClean(exportGitdir(fs, GITDIR));
  });

  describe.skipIf(chromiumSkipped())('headless Chromium on lightning-fs (IndexedDB), through dist/browser.js', () => {
    let harness: Harness;
    beforeAll(async () => {
      harness = await openHarness();
    }, 120_000);
    afterAll(async () => {
      await harness?.close();
    });

    for (const sandbox of ['default', 'options'] as const) {
      const how = sandbox === 'default' ? 'QuickJS imported by the bundle (import map)' : "the page's own QuickJS and a WebAssembly.Module as options";
      it(`${how}: identical oids, TOOL_NOT_APPROVED, the loop stopped at the limit; git reads the export back`, async () => {
        const result = await harness.call<{ outcome: RepoToolOutcome; files: Record<string, string> }>('repoTools', `repo-tools-${sandbox}`, GITDIR, toBase64(base), sandbox);
        expect(comparable(result.outcome)).toEqual(comparable(onDisk.outcome));
        expectStoppedInTime(result.outcome);
        const exported = join(makeTempDir('repo-tools-browser'), 'repo.git');
        writeDir(exported, fromBase64(result.files));
        expectFsckClean(exported);
        expect(git(exported, ['rev-parse', 'forge/session/tools']).stdout.trim()).toBe(onDisk.outcome.steps.turn);
        expect(git(exported, ['show', `${onDisk.outcome.steps.turn}:src/a.txt`]).stdout).toBe('ALPHA\nBETA\n');
      }, 180_000);
    }
  });
});
