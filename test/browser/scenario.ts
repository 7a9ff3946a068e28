/**
 * One scripted session history, run unchanged in Node (disk, memfs) and in Chromium (lightning-fs
 * over IndexedDB), with a fixed clock and identity, so that every oid it makes must be the same
 * everywhere. It takes the engine as a parameter (`forge-engine/browser`'s exports: src/browser.ts
 * in Node, dist/browser.js in the page) and imports nothing but types, so the page bundle holds
 * no second copy of the engine.
 *
 * The history: session alpha writes, Edits a CRLF file (the model's LF snippet), Patches, deletes,
 * writes then Undoes, commits, then Edits again in a second turn; session beta changes another
 * file; both are merged into main (alpha with --no-ff, beta as a true merge); session gamma,
 * started on the old main, is rebased onto the new one. Then the error cases: a hostile path, a
 * stale file, a held ref lock, a lost compare-and-swap, a missing object.
 */
import type * as Forge from '../../src/browser';

export type ForgeApi = typeof Forge;

export const SCENARIO_FILES: Record<string, string> = {
  'src/a.txt': 'alpha\nbeta\ngamma\n',
  'src/b.txt': 'one\ntwo\n',
  'src/crlf.txt': 'first line\r\nsecond line\r\nthird line\r\n',
  'docs/readme.md': '# Readme\n\nSome words.\n',
  'src/c.txt': 'c content\n',
};

/** 2024-01-02T03:04:05Z: every commit, session file and tool record carries this time. */
const FIXED_TIME = new Date('2024-01-02T03:04:05.000Z');
/** With its time and zone: the default zone is the host's, which differs between machines. */
const IDENTITY = { name: 'Forge Test', email: 'forge-test@example.invalid', timestamp: FIXED_TIME.getTime() / 1000, timezoneOffset: 0 };

export interface ScenarioOutcome {
  /** Every ref under refs/ and the oid it points to, sorted. */
  refs: Array<{ ref: string; oid: string }>;
  /** Every object reachable from those refs ("<oid> <type>"), sorted. */
  objects: string[];
  /** Named results: commit oids of each step. */
  steps: Record<string, string>;
  /** Each error case: the error code (or "ok" when there was none). */
  errors: Record<string, string>;
  /** Files of main's final tree with their text, to compare with the git CLI's reading. */
  mainFiles: Record<string, string>;
}

export async function runScenario(api: ForgeApi, fs: Forge.GitFs, gitdir: string, platform?: Forge.GitPlatform): Promise<ScenarioOutcome> {
  const open = () => api.Repository.open({ fs, gitdir, ...(platform ? { platform } : {}) });
  const repo = await open();
  const now = () => new Date(FIXED_TIME);
  const store = new api.SessionStore(repo, now);
  const steps: Record<string, string> = {};
  const tools = (session: Forge.Session) => new api.SessionToolRunner(session, { approval: api.allowAll });
  const call = async (runner: InstanceType<ForgeApi['SessionToolRunner']>, tool: string, args: Record<string, unknown>) => {
    const result = await runner.call({ tool, args });
    if (!result.ok) throw new Error(`${tool} failed: ${result.error.code}: ${result.error.message}`);
    const output = result.output as { status?: string };
    if (output && typeof output === 'object' && output.status !== undefined && output.status !== 'ok') throw new Error(`${tool}: ${JSON.stringify(output)}`);
    return result.output as Record<string, unknown>;
  };

  // Session alpha: two turns.
  const alpha = await store.create({ id: 'alpha', base: 'main', author: IDENTITY });
  const a = tools(alpha);
  await alpha.recordUserMessage('Tidy the sources.');
  await call(a, 'read_file', { path: 'src/crlf.txt' });
  await call(a, 'Edit', { path: 'src/crlf.txt', old_snippet: 'second line\n', new_snippet: 'second line, edited\nan added line\n' });
  await call(a, 'write_file', { path: 'src/new/deep/file.txt', content: 'created in a new directory\n' });
  await call(a, 'read_file', { path: 'src/a.txt' });
  await call(a, 'Patch', { path: 'src/a.txt', patches: [{ operation: 'replace', oldText: 'beta\n', newText: 'BETA\n' }, { operation: 'append_eof', newText: 'delta\n' }] });
  await call(a, 'delete_file', { path: 'src/b.txt' });
  await call(a, 'write_file', { path: 'scratch.txt', content: 'undone\n' });
  await call(a, 'Undo', {});
  steps.alphaTurn1 = (await alpha.commitTurn({ message: 'Tidy the sources', author: IDENTITY })).commit;
  await alpha.recordUserMessage('One more change.');
  await call(a, 'read_file', { path: 'src/a.txt' });
  await call(a, 'Edit', { path: 'src/a.txt', old_snippet: 'gamma\n', new_snippet: 'GAMMA\n' });
  steps.alphaTurn2 = (await alpha.commitTurn({ author: IDENTITY })).commit;

  // Session beta, and gamma, both on the original main.
  const beta = await store.create({ id: 'beta', base: 'main', author: IDENTITY });
  const b = tools(beta);
  await call(b, 'read_file', { path: 'docs/readme.md' });
  await call(b, 'Edit', { path: 'docs/readme.md', old_snippet: 'Some words.\n', new_snippet: 'Some better words.\n' });
  steps.beta = (await beta.commitTurn({ message: 'Improve the readme', author: IDENTITY })).commit;
  const gamma = await store.create({ id: 'gamma', base: 'main', author: IDENTITY });
  const g = tools(gamma);
  await call(g, 'read_file', { path: 'src/c.txt' });
  await call(g, 'write_file', { path: 'src/c.txt', content: 'c content, rewritten\n' });
  steps.gamma = (await gamma.commitTurn({ message: 'Rewrite c', author: IDENTITY })).commit;

  // Merges into main, then the rebase of gamma onto the new main.
  const mergeOptions = { into: 'main', author: IDENTITY, committer: IDENTITY, now, noFf: true, dropSessionFiles: true };
  steps.mergeAlpha = (await api.mergeSession(repo, 'alpha', mergeOptions)).commit ?? 'none';
  steps.mergeBeta = (await api.mergeSession(repo, 'beta', mergeOptions)).commit ?? 'none';
  const rebased = await api.rebaseSession(repo, 'gamma', { onto: 'main', committer: IDENTITY, now });
  if (rebased.status !== 'rebased') throw new Error(`rebase: ${rebased.status}`);
  steps.rebasedGamma = rebased.after;

  // Error cases, on a fresh session.
  const errors: Record<string, string> = {};
  const delta = await store.create({ id: 'delta', base: 'main', author: IDENTITY });
  const d = tools(delta);
  const codeOf = async (run: () => Promise<unknown>) => {
    try {
      const result = (await run()) as { ok?: boolean; error?: { code: string }; output?: { status?: string } } | undefined;
      if (result && result.ok === false) return result.error!.code;
      if (result && result.output?.status && result.output.status !== 'ok') return `status:${result.output.status}`;
      return 'ok';
    } catch (error) {
      return (error as { code?: string }).code ?? `uncoded: ${(error as Error).message}`;
    }
  };
  errors.hostilePathDotDot = await codeOf(() => d.call({ tool: 'write_file', args: { path: '../outside.txt', content: 'x' } }));
  errors.hostilePathGitDir = await codeOf(() => d.call({ tool: 'write_file', args: { path: '.git/config', content: 'x' } }));
  await call(d, 'read_file', { path: 'src/c.txt' });
  // The file changes behind the tool's back (as another writer of the view would).
  await delta.vfs.writeFile('src/c.txt', new TextEncoder().encode('changed behind its back\n'));
  errors.staleFile = await codeOf(() => d.call({ tool: 'Patch', args: { path: 'src/c.txt', patches: [{ operation: 'append_eof', newText: 'more\n' }] } }));
  const lock = `${gitdir}/refs/heads/forge/session/delta.lock`;
  await fs.promises.writeFile(lock, 'stale\n');
  errors.heldRefLock = await codeOf(() => delta.commitTurn({ author: IDENTITY }));
  await fs.promises.unlink(lock);
  // Two Session objects on one session writing the same file: the second to commit loses the
  // compare-and-swap, and its edit conflicts with the first's (kept aside in a rescue commit).
  const first = await store.open('delta');
  const second = await store.open('delta');
  await first.vfs.writeFile('src/both.txt', new TextEncoder().encode('first\n'));
  await second.vfs.writeFile('src/both.txt', new TextEncoder().encode('second\n'));
  steps.deltaFirst = (await first.commitTurn({ author: IDENTITY, message: 'First writer' })).commit;
  errors.lostCompareAndSwap = await codeOf(() => second.commitTurn({ author: IDENTITY, message: 'Second writer' }));
  errors.missingObject = await codeOf(() => open().then((r) => r.readBlob('0123456789abcdef0123456789abcdef01234567')));
  errors.missingRevision = await codeOf(() => store.at('fedcba9876543210fedcba9876543210fedcba98'));

  const fresh = await open();
  const refs = await fresh.refs.list('refs/');
  return { refs, objects: await reachableObjects(fresh, refs.map((r) => r.oid)), steps, errors, mainFiles: await filesOf(api, fresh, 'main') };
}

/** Every object reachable from the commits, as "<oid> <type>", sorted. */
export async function reachableObjects(repo: Forge.Repository, heads: string[]): Promise<string[]> {
  const seen = new Map<string, string>();
  const commits = [...heads];
  const visitTree = async (oid: string): Promise<void> => {
    if (seen.has(oid)) return;
    seen.set(oid, 'tree');
    for (const entry of await repo.readTree(oid)) {
      if (entry.mode === '040000') await visitTree(entry.oid);
      else if (entry.mode !== '160000') seen.set(entry.oid, 'blob');
    }
  };
  while (commits.length > 0) {
    const oid = commits.pop()!;
    if (seen.has(oid)) continue;
    seen.set(oid, 'commit');
    const commit = await repo.readCommit(oid);
    await visitTree(commit.tree);
    commits.push(...commit.parents);
  }
  return [...seen].map(([oid, type]) => `${oid} ${type}`).sort();
}

async function filesOf(api: ForgeApi, repo: Forge.Repository, revision: string): Promise<Record<string, string>> {
  const commit = await repo.resolveCommit(revision);
  const view = new api.CommitVfs(repo, commit, (await repo.readCommit(commit)).tree);
  const out: Record<string, string> = {};
  for (const entry of await view.walk('')) out[entry.path] = new TextDecoder().decode(await view.readFile(entry.path));
  return out;
}
