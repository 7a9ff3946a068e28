/**
 * Issue 25, in the page: what a tab does right before it is reloaded (a turn commit, a pending
 * edit), and what the reloaded tab (or a second one) finds. Each step returns at once after the
 * engine reports it done, so the test reloads with no waiting. Imports only types: the engine is
 * the shipped bundle the page loaded (see scenario.ts).
 */
import type * as Forge from '../../src/browser';
import type { ForgeApi } from './scenario';

export const RELOAD_SESSION = 'reload';
const FIXED_TIME = new Date('2024-01-02T03:04:05.000Z');

/** The session the page keeps open between calls (a tab holding its pending edit). */
let held: Forge.Session | null = null;

async function open(api: ForgeApi, fs: Forge.GitFs, gitdir: string) {
  const repo = await api.Repository.open({ fs, gitdir });
  return { repo, store: new api.SessionStore(repo, () => FIXED_TIME) };
}

async function call(api: ForgeApi, session: Forge.Session, tool: string, args: Record<string, unknown>): Promise<void> {
  const result = await new api.SessionToolRunner(session, { approval: api.allowAll }).call({ tool, args });
  if (!result.ok) throw new Error(`${tool}: ${result.error.code} ${result.error.message}`);
}

/** A repository loaded into this page a moment ago: a session, one edit, the turn committed. */
export async function commitTurnNow(api: ForgeApi, fs: Forge.GitFs, gitdir: string): Promise<{ turn: string }> {
  const { store } = await open(api, fs, gitdir);
  const session = await store.create({ id: RELOAD_SESSION, base: 'HEAD' });
  await call(api, session, 'read_file', { path: 'src/a.txt' });
  await call(api, session, 'Edit', { path: 'src/a.txt', old_snippet: 'beta\n', new_snippet: 'beta, committed\n' });
  const turn = await session.commitTurn({ message: 'Committed right before a reload' });
  return { turn: turn.commit };
}

/** The session's branch as a fresh page finds it, and the file in its commit. */
export async function branchNow(api: ForgeApi, fs: Forge.GitFs, gitdir: string): Promise<{ head: string | null; text: string }> {
  const { repo } = await open(api, fs, gitdir);
  const head = await repo.refs.resolve(`refs/heads/forge/session/${RELOAD_SESSION}`);
  const view = new api.CommitVfs(repo, head!, (await repo.readCommit(head!)).tree);
  return { head, text: new TextDecoder().decode(await view.readFile('src/a.txt')) };
}

/** Opens the session and leaves one edit pending (journaled, not committed); the page keeps it open. */
export async function editPendingNow(api: ForgeApi, fs: Forge.GitFs, gitdir: string): Promise<void> {
  const { store } = await open(api, fs, gitdir);
  held = await store.open(RELOAD_SESSION);
  await call(api, held, 'read_file', { path: 'src/b.txt' });
  await call(api, held, 'Edit', { path: 'src/b.txt', old_snippet: 'two\n', new_snippet: 'two, pending\n' });
}

/** Reopens the session (taking its lease, as a writer does) and reports what is pending; the page keeps it open. */
export async function reopenPending(api: ForgeApi, fs: Forge.GitFs, gitdir: string): Promise<{ pending: string[]; text: string }> {
  const { store } = await open(api, fs, gitdir);
  held = await store.open(RELOAD_SESSION);
  return { pending: [...held.vfs.pendingSet.keys()].sort(), text: new TextDecoder().decode(await held.vfs.readFile('src/b.txt')) };
}

/** A second tab: opening the session for writing; the error code, or "ok". */
export async function tryToWrite(api: ForgeApi, fs: Forge.GitFs, gitdir: string): Promise<string> {
  try {
    const { store } = await open(api, fs, gitdir);
    const session = await store.open(RELOAD_SESSION);
    await call(api, session, 'write_file', { path: 'second-tab.txt', content: 'from the second tab\n' });
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** The kept session writes once more and commits: the pending edit was writable. */
export async function writeAndCommit(api: ForgeApi): Promise<{ turn: string }> {
  if (held === null) throw new Error('No session open in this page.');
  await call(api, held, 'Edit', { path: 'src/b.txt', old_snippet: 'one\n', new_snippet: 'one, after the reload\n' });
  const turn = await held.commitTurn({ message: 'After the reload' });
  held = null;
  return { turn: turn.commit };
}
