/**
 * Continuing a session fetched from another machine: the local branch is created at, or
 * fast-forwarded to, the remote one, only when the local side has no turns and no pending
 * changes of its own (pending changes never travel; they would be left on a base that moved).
 * Otherwise PULL_NOT_FAST_FORWARD, pointing at `forge resume --from <remote commit>`.
 */
import { ForgeError } from '../errors';
import { ZERO_OID, type Repository } from '../git';
import { commitLoader, isAncestorOf } from './commit-walk';
import { fetchSessions, type FetchOptions } from './fetch';
import { checkSessionId, sessionHead, trackingRef } from './remote';

export interface PullOptions extends FetchOptions {
  /** Whether the local session has pending (uncommitted) changes or an unfinished turn; asked only if it exists. */
  hasPending: (session: string) => Promise<boolean>;
}

export interface PullResult {
  session: string;
  remote: string;
  status: 'created' | 'fast-forward' | 'up-to-date';
  before: string | null;
  after: string;
  /** The fetch's warnings (a followed redirect, skipped ref names). */
  warnings: string[];
}

export async function pullSession(repo: Repository, id: string, options: PullOptions): Promise<PullResult> {
  checkSessionId(id);
  const fetched = await fetchSessions(repo, { ...options, sessions: [id] });
  const remoteHead = await repo.refs.resolve(trackingRef(fetched.name, id));
  if (remoteHead === null) throw new ForgeError('REMOTE_SESSION_NOT_FOUND', `Remote ${fetched.remote} has no session ${id}.`, { data: { session: id } });
  const ref = sessionHead(id);
  const local = await repo.refs.resolve(ref);
  const result = { session: id, remote: fetched.remote, before: local, after: remoteHead, warnings: fetched.warnings };
  const refuse = (why: string) =>
    new ForgeError('PULL_NOT_FAST_FORWARD', `Session ${id} cannot be fast-forwarded to ${fetched.name}'s: ${why}. Nothing was changed.`, {
      data: { session: id, local, remote: remoteHead },
      hint: `Continue the remote work in a new session: forge resume --from ${remoteHead}`,
    });
  if (local === remoteHead) {
    if (await options.hasPending(id)) throw refuse('it has pending (uncommitted) changes, which never travel');
    return { ...result, status: 'up-to-date' };
  }
  if (local !== null) {
    if (!(await isAncestorOf(commitLoader(repo), local, remoteHead))) throw refuse('the local branch has turns the remote one does not');
    if (await options.hasPending(id)) throw refuse('it has pending (uncommitted) changes, which never travel');
  }
  await repo.refs.update({ ref, newOid: remoteHead, expectedOid: local ?? ZERO_OID, reflogMessage: `pull ${fetched.name}: fast-forward`, committer: await repo.identity() });
  return { ...result, status: local === null ? 'created' : 'fast-forward' };
}
