/**
 * Pushing session branches: each goes to the remote under its own name, only as a fast-forward
 * of what the remote holds (or, with forceWithLease, only if the remote still holds what we last
 * fetched). The server checks each old value under its ref lock too, so a push that raced
 * another is refused there. Nothing local changes but the remote-tracking ref of what was
 * accepted, moved by compare-and-swap after the server said ok.
 */
import { ForgeError } from '../errors';
import { ZERO_OID, type Repository } from '../git';
import { parseAdvertisement } from './advertisement';
import { commitLoader, isAncestorOf } from './commit-walk';
import { encodeDelta } from './delta-encoder';
import { objectsToSend, type ObjectToSend } from './objects-to-send';
import { writePack, type PackObject } from './pack-writer';
import { parseReportStatus, receivePackRequest, type RefCommand } from './receive-pack';
import { checkSessionId, openRemote, SESSION_HEADS, sessionHead, trackingRef, type RemoteOptions } from './remote';

export interface PushOptions extends RemoteOptions {
  /** Session ids; empty or absent with `all`: every local session. */
  sessions?: readonly string[];
  all?: boolean;
  forceWithLease?: boolean;
}

export type PushStatus = 'created' | 'fast-forward' | 'forced' | 'up-to-date' | 'rejected' | 'lease-lost';

export interface PushedSession {
  session: string;
  ref: string;
  status: PushStatus;
  /** What the remote held before (null: nothing). */
  before: string | null;
  after: string;
  reason?: string;
}

export interface PushResult {
  remote: string;
  sessions: PushedSession[];
  objects: number;
  /** Bytes of the receive-pack request (commands and pack). */
  bytesSent: number;
  /** What the user should know that did not stop the push (a followed redirect). */
  warnings: string[];
}

async function sessionsToPush(repo: Repository, options: PushOptions): Promise<Array<{ id: string; oid: string }>> {
  if (options.all || !options.sessions || options.sessions.length === 0) {
    if (!options.all) throw new ForgeError('INVALID_ARGUMENT', 'Name the sessions to push, or pass --all.');
    return (await repo.refs.list(SESSION_HEADS)).map(({ ref, oid }) => ({ id: ref.slice(SESSION_HEADS.length), oid }));
  }
  const out: Array<{ id: string; oid: string }> = [];
  for (const id of options.sessions) {
    const oid = await repo.refs.resolve(sessionHead(checkSessionId(id)));
    if (oid === null) throw new ForgeError('SESSION_NOT_FOUND', `No session ${id} here (no branch forge/session/${id}) to push.`, { data: { id } });
    out.push({ id, oid });
  }
  return out;
}

export async function pushSessions(repo: Repository, options: PushOptions): Promise<PushResult> {
  const remote = await openRemote(repo, options);
  const { transport } = remote;
  if (options.forceWithLease && remote.name === null) {
    throw new ForgeError('REMOTE_NAME_REQUIRED', '--force-with-lease compares with what was last fetched from a named remote; a bare URL has no such record.', {
      hint: 'Add the remote with `git remote add NAME URL`, fetch, then push with --remote NAME.',
    });
  }
  const local = await sessionsToPush(repo, options);
  const advertised = parseAdvertisement(await transport.advertisement('git-receive-pack'), 'git-receive-pack', transport.label);
  const load = commitLoader(repo);
  const results: PushedSession[] = [];
  const commands: RefCommand[] = [];
  for (const { id, oid } of local) {
    const ref = sessionHead(id);
    const theirs = advertised.refs.get(ref) ?? null;
    const base = { session: id, ref, before: theirs, after: oid };
    if (theirs === oid) {
      results.push({ ...base, status: 'up-to-date' });
      continue;
    }
    if (options.forceWithLease) {
      const lease = await repo.refs.resolve(trackingRef(remote.name!, id));
      if (theirs !== lease) {
        results.push({ ...base, status: 'lease-lost', reason: `the remote holds ${theirs ?? 'nothing'}, the last fetch saw ${lease ?? 'nothing'}` });
        continue;
      }
      commands.push({ ref, oldOid: theirs ?? ZERO_OID, newOid: oid });
      results.push({ ...base, status: theirs === null ? 'created' : 'forced' });
      continue;
    }
    if (theirs !== null && !((await repo.objects.has(theirs)) && (await isAncestorOf(load, theirs, oid)))) {
      results.push({ ...base, status: 'rejected', reason: 'non-fast-forward: the remote has commits this session does not' });
      continue;
    }
    commands.push({ ref, oldOid: theirs ?? ZERO_OID, newOid: oid });
    results.push({ ...base, status: theirs === null ? 'created' : 'fast-forward' });
  }
  let objects = 0;
  let bytesSent = 0;
  if (commands.length > 0) {
    const toSend = await objectsToSend(repo, commands.map((c) => c.newOid), [...new Set(advertised.refs.values())]);
    objects = toSend.length;
    const pack = await writePack(packObjects(repo, toSend, !advertised.capabilities.has('no-thin')), toSend.length, repo.platform);
    const body = receivePackRequest(commands, pack, advertised.capabilities);
    bytesSent = body.length;
    const report = parseReportStatus(await transport.call('git-receive-pack', body), advertised.capabilities.has('side-band-64k'), transport.label);
    if (report.unpack !== 'ok') {
      throw new ForgeError('REMOTE_REJECTED', `Remote ${transport.label} could not unpack what was sent: ${report.unpack}. No ref moved there or here.`, { data: { remote: transport.label } });
    }
    for (const result of results) {
      if (!commands.some((c) => c.ref === result.ref)) continue;
      const reason = report.refs.get(result.ref);
      if (reason === undefined || reason !== null) {
        result.status = 'rejected';
        result.reason = reason ?? 'the remote did not report on this ref';
        continue;
      }
      if (remote.name !== null) await moveTracking(repo, trackingRef(remote.name, result.session), result.after, 'push');
    }
  }
  for (const result of results) {
    if (result.status === 'up-to-date' && remote.name !== null) await moveTracking(repo, trackingRef(remote.name, result.session), result.after, 'push');
  }
  return { remote: transport.label, sessions: results, objects, bytesSent, warnings: transport.warnings };
}

/**
 * The objects, each as a delta against the same path's previous version when that is less than
 * half its size (a turn's edit of a file, the session file that grows by a turn): git push's
 * thin packs do the same, and without it a long session's state file would travel whole.
 */
async function* packObjects(repo: Repository, objects: readonly ObjectToSend[], thin: boolean): AsyncGenerator<PackObject> {
  for (const { oid, base } of objects) {
    const object = await repo.objects.read(oid);
    if (thin && base !== undefined && object.content.length >= MIN_DELTA_TARGET) {
      const baseObject = await repo.objects.read(base);
      if (baseObject.type === object.type) {
        const data = encodeDelta(baseObject.content, object.content);
        if (data.length * 2 < object.content.length) {
          yield { ...object, delta: { base, data } };
          continue;
        }
      }
    }
    yield object;
  }
}

/** Below this a delta (20 bytes of base oid, two sizes) cannot save much. */
const MIN_DELTA_TARGET = 64;

/** Moves a remote-tracking ref to what the remote is known to hold (compare-and-swap against what it was). */
export async function moveTracking(repo: Repository, ref: string, oid: string, why: string): Promise<void> {
  const current = await repo.refs.resolve(ref);
  if (current === oid) return;
  await repo.refs.update({ ref, newOid: oid, expectedOid: current ?? ZERO_OID, reflogMessage: why, committer: await repo.identity() });
}
