/**
 * The browser performance cases (docs/PERFORMANCE.md, "In a browser"), run the same way in
 * Chromium over lightning-fs and in Node for comparison: open a repository and read one file
 * (a fresh fs object and Repository, as a reloaded page has), warm reads by path, listing every
 * file (cold, then warm), and a 10-file turn commit. Times in milliseconds (performance.now()).
 * Only measured by bench/browser-bench.mjs; the tests assert on none of these numbers.
 */
import type * as Forge from '../../src/browser';
import type { ForgeApi } from './scenario';

export interface BenchResult {
  files: number;
  openAndReadOneMs: number;
  /** Its phases: the fs's first call (lightning-fs loads its directory tree), Repository.open, resolving main and reading the file. */
  openPhases: { fsReadyMs: number; repositoryOpenMs: number; readMs: number };
  warmReadMs: number;
  listColdMs: number;
  listWarmMs: number;
  turnCommit10Ms: number[];
}

const IDENTITY = { name: 'Forge Bench', email: 'bench@example.invalid' };
const WARM_READS = 200;
const TURNS = 5;

export async function runBench(api: ForgeApi, makeFs: () => Forge.GitFs, gitdir: string, platform?: Forge.GitPlatform): Promise<BenchResult> {
  const options = (fs: Forge.GitFs) => ({ fs, gitdir, ...(platform ? { platform } : {}) });
  const decoder = new TextDecoder();

  let t = performance.now();
  const fs = makeFs();
  await fs.promises.stat(gitdir);
  const fsReady = performance.now();
  const repo = await api.Repository.open(options(fs));
  const opened = performance.now();
  const head = await repo.resolveCommit('main');
  const view = new api.CommitVfs(repo, head, (await repo.readCommit(head)).tree);
  const first = await view.readFile('src/mod0/file0.txt');
  const openAndReadOneMs = performance.now() - t;
  const openPhases = { fsReadyMs: fsReady - t, repositoryOpenMs: opened - fsReady, readMs: performance.now() - opened };
  if (!decoder.decode(first).startsWith('file 0')) throw new Error('read the wrong content');

  t = performance.now();
  const files = await view.walk('');
  const listColdMs = performance.now() - t;
  t = performance.now();
  await view.walk('');
  const listWarmMs = performance.now() - t;

  const paths = files.slice(0, 50).map((f) => f.path);
  for (const path of paths) await view.readFile(path); // warm them
  t = performance.now();
  for (let i = 0; i < WARM_READS; i++) await view.readFile(paths[i % paths.length]!);
  const warmReadMs = (performance.now() - t) / WARM_READS;

  const store = new api.SessionStore(repo);
  const session = await store.create({ id: `bench-${Date.now().toString(36)}`, base: 'main', author: IDENTITY });
  const encoder = new TextEncoder();
  const turnCommit10Ms: number[] = [];
  for (let turn = 0; turn < TURNS; turn++) {
    for (let i = 0; i < 10; i++) await session.vfs.writeFile(files[i * 97]!.path, encoder.encode(`turn ${turn} file ${i}\n`));
    t = performance.now();
    await session.commitTurn({ message: `bench turn ${turn}`, author: IDENTITY });
    turnCommit10Ms.push(performance.now() - t);
  }
  return { files: files.length, openAndReadOneMs, openPhases, warmReadMs, listColdMs, listWarmMs, turnCommit10Ms };
}
