/**
 * `forge-engine/browser`: its import graph holds no node:* module and no Node global, it exports
 * the root entry's API minus the Node adapters (repository tools included: test/browser/repo-tools.test.ts
 * runs them in Chromium), the package exports it, and its bundle stays under the size target with
 * no isomorphic-git and no QuickJS inside (QuickJS is imported when a repository tool first runs).
 */
import { writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkBrowserEntry } from '../../scripts/check-browser.mjs';
import { build } from 'esbuild';
import * as browserEntry from '../../src/browser';
import * as repoToolsEntry from '../../src/browser-repo-tools';
import * as rootEntry from '../../src/index';
import { makeTempDir } from '../helpers/temp';

/** What the root entry adds for Node (src/index.ts says why each needs Node). */
const NODE_ADAPTERS = [
  'nodePlatform',
  'nodeWorktreeSync',
  'createRunCommandTool',
  'pushSessions',
  'fetchSessions',
  'pullSession',
  'remoteSessionStatus',
  'resolveFetchedSession',
  'parseRemoteUrl',
  'redactUrl',
  'TOKEN_ENV',
  'nodeStreamInflater',
  'gitCredentialHelper',
  // Repository tools in a worker thread the host can terminate (Node's worker_threads).
  'NodeWorkerSandbox',
  // forge mount: a FUSE file system (MountFs answers its operations, SerialQueue orders them with tool calls).
  'mountSession',
  'unmountDir',
  'SessionCommandWorkspace',
  'MountFs',
  'SerialQueue',
];

describe('forge-engine/browser', () => {
  it('src/browser.ts reaches no node:* module and no Node global', async () => {
    expect(await checkBrowserEntry('src/browser.ts')).toEqual([]);
  });

  it('the check reports a node:* import, a Node global, and the root entry (which holds the adapters)', async () => {
    const dir = makeTempDir('browser-entry');
    writeFileSync(join(dir, 'uses-node.ts'), "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n");
    writeFileSync(join(dir, 'uses-buffer.ts'), "export const bytes = (s: string) => Buffer.from(s, 'hex');\n");
    writeFileSync(join(dir, 'uses-process.ts'), 'export const cwd = () => process.cwd();\n');
    expect((await checkBrowserEntry(join(dir, 'uses-node.ts'))).join('\n')).toMatch(/node:fs/);
    expect(await checkBrowserEntry(join(dir, 'uses-buffer.ts'))).toEqual([expect.stringMatching(/uses the Node global Buffer/)]);
    expect(await checkBrowserEntry(join(dir, 'uses-process.ts'))).toEqual([expect.stringMatching(/uses the Node global process/)]);
    expect((await checkBrowserEntry('src/index.ts')).join('\n')).toMatch(/node:crypto/);
  });

  it('exports the root entry API minus the Node adapters (with forge-engine/browser/repo-tools)', () => {
    const expected = Object.keys(rootEntry).filter((name) => !NODE_ADAPTERS.includes(name)).sort();
    expect([...Object.keys(browserEntry), ...Object.keys(repoToolsEntry)].sort()).toEqual(expected);
    for (const name of NODE_ADAPTERS) expect(name in rootEntry).toBe(true);
  });

  it('the package exports ./browser as dist/browser.js, which exposes the same names', async () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, unknown> };
    expect(pkg.exports['./browser']).toEqual({ types: './dist/types/browser.d.ts', import: './dist/browser.js', default: './dist/browser.js' });
    // Self-reference through the package's own exports map (dist/ is built by the global setup).
    const shipped = (await import('forge-engine/browser' as string)) as Record<string, unknown>;
    expect(Object.keys(shipped).sort()).toEqual(Object.keys(browserEntry).sort());
  });

  it('dist/browser.js is under 300 KB gzipped and holds no isomorphic-git', () => {
    const bundle = readFileSync('dist/browser.js');
    expect(gzipSync(bundle, { level: 9 }).length).toBeLessThan(300 * 1024);
    const map = JSON.parse(readFileSync('dist/browser.js.map', 'utf8')) as { sources: string[] };
    expect(map.sources.some((source) => source.includes('isomorphic-git'))).toBe(false);
    expect(map.sources.some((source) => source.includes('src/git/async-objects.ts'))).toBe(true);
  });

  it('issue 25: the browser entry\'s module graph holds no QuickJS and no sandbox (vite would emit its 503 KB .wasm); forge-engine/browser/repo-tools holds them', async () => {
    const graph = async (entry: string) =>
      Object.keys((await build({ entryPoints: [entry], bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' })).metafile.inputs);
    const main = await graph('src/browser.ts');
    expect(main.filter((input) => /quickjs|@jitl\//i.test(input))).toEqual([]);
    expect(main).toContain('src/tools/repo/repo-tools.ts');
    const tools = await graph('src/browser-repo-tools.ts');
    expect(tools).toContain('src/tools/repo/quickjs-sandbox.ts');
    expect(tools.some((input) => input.includes('quickjs-emscripten-core'))).toBe(true);
    expect(await checkBrowserEntry('src/browser-repo-tools.ts')).toEqual([]);
    // The shipped files: no QuickJS import at all in dist/browser.js.
    const map = JSON.parse(readFileSync('dist/browser.js.map', 'utf8')) as { sources: string[] };
    expect(map.sources.filter((source) => /quickjs|@jitl\//i.test(source))).toEqual([]);
    expect(readFileSync('dist/browser.js', 'utf8')).not.toMatch(/quickjs-emscripten-core|@jitl\//);
  });

  it('dist/browser-repo-tools.js imports QuickJS when a tool first runs and takes ForgeError from ./browser.js (one error class)', async () => {
    const text = readFileSync('dist/browser-repo-tools.js', 'utf8');
    expect(text).toContain('import("quickjs-emscripten-core")');
    expect(text).toContain('import("@jitl/quickjs-wasmfile-release-sync")');
    expect(text).not.toMatch(/from\s*["'](?:quickjs-emscripten-core|@jitl\/)/);
    expect(text).toMatch(/^import\{ForgeError as \w+\}from"\.\/browser\.js"/);
    const map = JSON.parse(readFileSync('dist/browser-repo-tools.js.map', 'utf8')) as { sources: string[] };
    expect(map.sources.some((source) => source.includes('src/errors/'))).toBe(false);
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, unknown>; files: string[] };
    expect(pkg.exports['./browser/repo-tools']).toEqual({ types: './dist/types/browser-repo-tools.d.ts', import: './dist/browser-repo-tools.js', default: './dist/browser-repo-tools.js' });
    expect(pkg.files).toContain('dist/browser-repo-tools.js');
    const shipped = (await import('forge-engine/browser/repo-tools' as string)) as Record<string, unknown>;
    expect(Object.keys(shipped).sort()).toEqual(Object.keys(repoToolsEntry).sort());
  });
});
