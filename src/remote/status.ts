/**
 * Where each fetched remote session stands against the local one: same, ahead (local has turns
 * the remote lacks: push), behind (pull), diverged (both have their own turns), or remote only.
 * Read from the remote-tracking refs: what the last fetch or push saw, no network.
 */
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { commitLoader, divergence, type Divergence } from './commit-walk';
import { checkSessionId, sessionHead, trackingRef } from './remote';

export interface RemoteSessionStatus {
  remote: string;
  session: string;
  /** The remote-tracking ref's value. */
  remoteHead: string;
  localHead: string | null;
  state: Divergence['state'] | 'remote-only';
  ahead: number;
  behind: number;
}

const TRACKING = /^refs\/remotes\/([^/]+)\/forge\/session\/(.+)$/;

export async function remoteSessionStatus(repo: Repository): Promise<RemoteSessionStatus[]> {
  const load = commitLoader(repo);
  const out: RemoteSessionStatus[] = [];
  for (const { ref, oid } of await repo.refs.list('refs/remotes/')) {
    const match = TRACKING.exec(ref);
    if (!match) continue;
    const [, remote, session] = match;
    const local = await repo.refs.resolve(sessionHead(session!));
    if (local === null) {
      out.push({ remote: remote!, session: session!, remoteHead: oid, localHead: null, state: 'remote-only', ahead: 0, behind: 0 });
      continue;
    }
    const d = await divergence(load, local, oid);
    out.push({ remote: remote!, session: session!, remoteHead: oid, localHead: local, ...d });
  }
  return out;
}

/**
 * `<remote>/<id>` (as `forge merge origin/<id>` takes it) -> the fetched session's tracking ref,
 * shaped as a merge side: ref, label for messages and conflict markers, oid.
 */
export async function resolveFetchedSession(repo: Repository, spec: string): Promise<{ ref: string; label: string; oid: string }> {
  const slash = spec.indexOf('/');
  const remote = spec.slice(0, slash);
  const session = spec.slice(slash + 1);
  const ref = trackingRef(remote, checkSessionId(session));
  const oid = await repo.refs.resolve(ref);
  if (oid === null) {
    throw new ForgeError('REMOTE_SESSION_NOT_FOUND', `No fetched session ${session} from ${remote} (no ${ref}).`, {
      data: { remote, session },
      hint: `Fetch it first: forge fetch --remote ${remote} ${session}`,
    });
  }
  return { ref, label: `${remote}/forge/session/${session}`, oid };
}
