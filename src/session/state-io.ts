/** Reading a session's state out of a commit's tree. */
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { CommitVfs } from '../vfs';
import { SESSION_DIR, sessionStatePath } from './ids';
import { parseTrailers } from './commit-message';
import type { SessionState } from './state';
import { decodeState } from './state-codec';

export async function readStateAt(repo: Repository, commit: string, id: string): Promise<SessionState> {
  const view = new CommitVfs(repo, commit, (await repo.readCommit(commit)).tree);
  return readStateFromView(view, id, commit);
}

export async function readStateFromView(view: CommitVfs, id: string, commit: string): Promise<SessionState> {
  const path = sessionStatePath(id);
  const entry = await view.entry(path);
  if (entry === null || entry.mode === '040000') {
    throw new ForgeError('SESSION_STATE_INVALID', `Commit ${commit} has no ${path}; it was not written by a forge session.`, { data: { commit, id } });
  }
  return decodeState(await view.readFile(path), `${path} at ${commit.slice(0, 12)}`);
}

/** Which session wrote a commit: its Forge-Session trailer, else the only state file in its tree. */
export async function sessionIdOf(repo: Repository, commit: string): Promise<string> {
  const parsed = await repo.readCommit(commit);
  const trailer = parseTrailers(parsed.message)['Forge-Session'];
  if (trailer) return trailer;
  const view = new CommitVfs(repo, commit, parsed.tree);
  const dir = await view.directory(SESSION_DIR);
  const ids = [...(dir?.keys() ?? [])].filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -5));
  if (ids.length === 1) return ids[0]!;
  throw new ForgeError('COMMIT_NOT_IN_SESSION', `Commit ${commit.slice(0, 12)} has no Forge-Session trailer${ids.length > 1 ? ' and several session files' : ' and no session file'}; name a commit of a forge session branch.`, {
    data: { commit },
  });
}
