/**
 * The code the Chromium tests run in the page: lightning-fs over IndexedDB, the engine from the
 * shipped bundle (dist/browser.js, served as /browser.js and imported at run time, so this file's
 * own bundle holds no copy of it), and the scenarios. Exposed as `window.forgeTest`.
 */
import LightningFS from '@isomorphic-git/lightning-fs';
import type { GitFs } from '../../src/browser';
import { runBench, type BenchResult } from './bench-scenario';
import { branchNow, commitTurnNow, editPendingNow, reopenPending, tryToWrite, writeAndCommit } from './reload-scenario';
import { runRepoToolScenario, type RepoToolOutcome } from './repo-tools-scenario';
import { runScenario, type ForgeApi, type ScenarioOutcome } from './scenario';

const ENGINE_URL = '/browser.js';
const REPO_TOOLS_URL = '/browser-repo-tools.js';
let engine: Promise<ForgeApi> | null = null;
const api = (): Promise<ForgeApi> => (engine ??= import(/* @vite-ignore */ ENGINE_URL) as Promise<ForgeApi>);

function openFs(name: string, wipe: boolean): GitFs {
  const fs = new LightningFS(name, { wipe }) as unknown as GitFs;
  opened.set(name, fs);
  return fs;
}

/** The fs this page last opened on each database: one LightningFS per database, as an app keeps. */
const opened = new Map<string, GitFs>();
const fsOf = (name: string): GitFs => opened.get(name) ?? openFs(name, false);

function toBytes(base64: string): Uint8Array {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

async function load(fs: GitFs, root: string, files: Record<string, string>): Promise<void> {
  const { mkdirp } = await api();
  for (const dir of ['refs', 'objects']) await mkdirp(fs, `${root}/${dir}`);
  for (const [rel, data] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    await mkdirp(fs, path.slice(0, path.lastIndexOf('/')));
    await fs.promises.writeFile(path, toBytes(data));
  }
}

async function dump(fs: GitFs, root: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of await fs.promises.readdir(prefix === '' ? root : `${root}/${prefix}`)) {
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    const stat = await fs.promises.lstat(`${root}/${rel}`);
    if (stat.isDirectory()) Object.assign(out, await dump(fs, root, rel));
    else out[rel] = toBase64(await fs.promises.readFile(`${root}/${rel}`));
  }
  return out;
}

const forgeTest = {
  /** Loads a git directory into a fresh IndexedDB-backed fs, runs the scenario, returns its outcome and the files. */
  async scenario(dbName: string, gitdir: string, files: Record<string, string>): Promise<{ outcome: ScenarioOutcome; files: Record<string, string> }> {
    const fs = openFs(dbName, true);
    await load(fs, gitdir, files);
    const outcome = await runScenario(await api(), fs, gitdir);
    return { outcome, files: await dump(fs, gitdir) };
  },
  /**
   * The README's path: an empty IndexedDB, isomorphic-git's clone over its http/web client
   * (loaded only now), then a session on the clone with one committed turn.
   */
  async cloneAndWork(dbName: string, url: string): Promise<{ head: string; turn: string; files: Record<string, string> }> {
    const fs = openFs(dbName, true);
    const dir = '/clone';
    // isomorphic-git (not the engine) needs a global Buffer in a browser.
    (globalThis as { Buffer?: unknown }).Buffer ??= (await import('buffer')).Buffer;
    const [{ default: git }, { default: http }] = await Promise.all([import('isomorphic-git'), import('isomorphic-git/http/web')]);
    await git.clone({ fs: fs as never, http, dir, url, singleBranch: true, noCheckout: true });
    const forge = await api();
    const repo = await forge.Repository.open({ fs, dir });
    const head = await repo.resolveCommit('HEAD');
    const session = await new forge.SessionStore(repo).create({ id: 'cloned', base: 'HEAD' });
    const tools = new forge.SessionToolRunner(session, { approval: forge.allowAll });
    for (const [tool, args] of [
      ['read_file', { path: 'src/a.txt' }],
      ['Edit', { path: 'src/a.txt', old_snippet: 'beta\n', new_snippet: 'beta, edited in the browser\n' }],
    ] as const) {
      const result = await tools.call({ tool, args });
      if (!result.ok) throw new Error(`${tool}: ${result.error.code} ${result.error.message}`);
    }
    const turn = await session.commitTurn({ message: 'Edit in the browser' });
    return { head, turn: turn.commit, files: await dump(fs, `${dir}/.git`) };
  },
  /**
   * The repository-tool scenario on a fresh IndexedDB. `sandbox`: "default" lets
   * dist/browser-repo-tools.js import QuickJS (resolved by the page's import map, the .wasm found next to the variant);
   * "options" hands it this page's own bundled copy of the packages and a compiled
   * WebAssembly.Module (that copy would look for the .wasm next to page.js, where there is none).
   */
  async repoTools(dbName: string, gitdir: string, files: Record<string, string>, sandbox: 'default' | 'options'): Promise<{ outcome: RepoToolOutcome; files: Record<string, string> }> {
    const fs = openFs(dbName, true);
    await load(fs, gitdir, files);
    const forge = await api();
    // forge-engine/browser/repo-tools: the sandbox apart from the engine (its ForgeError is /browser.js's).
    const { QuickJsSandbox } = (await import(/* @vite-ignore */ REPO_TOOLS_URL)) as typeof import('../../src/browser-repo-tools');
    const box =
      sandbox === 'default'
        ? new QuickJsSandbox()
        : new QuickJsSandbox({
            modules: async () => ({ core: await import('quickjs-emscripten-core'), variant: await import('@jitl/quickjs-wasmfile-release-sync') }),
            wasm: await WebAssembly.compileStreaming(fetch('/node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm')),
          });
    const outcome = await runRepoToolScenario(forge, fs, gitdir, box);
    return { outcome, files: await dump(fs, gitdir) };
  },
  /** Issue 25: loads the repository into a fresh IndexedDB and commits a turn; the test reloads right after. */
  async commitTurnNow(dbName: string, gitdir: string, files: Record<string, string>) {
    const fs = openFs(dbName, true);
    await load(fs, gitdir, files);
    return commitTurnNow(await api(), fs, gitdir);
  },
  branchNow: async (dbName: string, gitdir: string) => branchNow(await api(), fsOf(dbName), gitdir),
  editPendingNow: async (dbName: string, gitdir: string) => editPendingNow(await api(), fsOf(dbName), gitdir),
  reopenPending: async (dbName: string, gitdir: string) => reopenPending(await api(), fsOf(dbName), gitdir),
  tryToWrite: async (dbName: string, gitdir: string) => tryToWrite(await api(), fsOf(dbName), gitdir),
  writeAndCommit: async () => writeAndCommit(await api()),
  async dump(dbName: string, gitdir: string) {
    return dump(fsOf(dbName), gitdir);
  },
  async bench(dbName: string, gitdir: string, files: Record<string, string>): Promise<BenchResult> {
    const fs = openFs(dbName, true);
    await load(fs, gitdir, files);
    // Written through to IndexedDB now (lightning-fs debounces its directory tree by 500 ms).
    await (fs.promises as unknown as { flush(): Promise<void> }).flush();
    // lightning-fs lets go of its database lock 500 ms after its last call; a second fs object
    // waits for it, which a reloaded page would not.
    await new Promise((resolve) => setTimeout(resolve, 700));
    // A second fs object on the same database: the repository as a reloaded page finds it.
    return runBench(await api(), () => openFs(dbName, false), gitdir);
  },
};

(globalThis as unknown as { forgeTest: typeof forgeTest }).forgeTest = forgeTest;
