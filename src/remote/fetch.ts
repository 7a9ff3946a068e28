/**
 * Fetching session branches into `refs/remotes/<remote>/forge/session/<id>`: one upload-pack
 * request wanting the tips we lack and naming our own tips as haves, the pack unpacked through
 * the object store, and only then the remote-tracking refs moved (compare-and-swap), so a ref
 * never points at an object that is not there. Every check on the advertised names and their
 * number runs before the first request for objects, so a refusal moves nothing.
 */
import { ForgeError, quoteRemote, toForgeError } from '../errors';
import type { Repository } from '../git';
import { parseAdvertisement } from './advertisement';
import { selectAdvertisedSessions, type AdvertisedSession } from './advertised-sessions';
import { findUnconnected, trustedTips } from './connectivity';
import type { StreamInflater, UnpackLimits } from './pack-unpack';
import { receivePack, unpackLimits, type ReceiveOptions } from './received-objects';
import { moveTracking } from './push';
import { checkSessionId, openRemote, trackingRef, type RemoteOptions } from './remote';
import { fetchMaxNewRefs } from './transfer-config';
import { packFromUploadPackResponse, uploadPackRequest } from './upload-pack';

export interface FetchOptions extends RemoteOptions {
  /** Only these sessions (default: every session branch the remote has). */
  sessions?: readonly string[];
  inflate: StreamInflater;
  /** Default: forge.maxObjectSize / forge.maxPackSize, else DEFAULT_UNPACK_LIMITS. */
  limits?: UnpackLimits;
}

export interface FetchedSession {
  session: string;
  ref: string;
  before: string | null;
  after: string;
  status: 'new' | 'updated' | 'up-to-date';
}

export interface FetchResult {
  remote: string;
  name: string;
  sessions: FetchedSession[];
  objects: number;
  bytesReceived: number;
  /** What the user should see but did not stop the fetch: skipped ref names (escaped), a followed redirect. */
  warnings: string[];
}

/** At most this many of our tips are offered as haves (the server ignores those it lacks). */
const MAX_HAVES = 256;

export async function fetchSessions(repo: Repository, options: FetchOptions): Promise<FetchResult> {
  const remote = await openRemote(repo, options);
  const { transport } = remote;
  if (remote.name === null) {
    throw new ForgeError('REMOTE_NAME_REQUIRED', `Fetching keeps refs/remotes/<name>/forge/session/*; ${transport.endpoint.display} is a bare URL.`, {
      hint: 'Add it with `git remote add NAME URL` and fetch with --remote NAME.',
    });
  }
  const name = remote.name;
  const wanted = options.sessions?.map(checkSessionId);
  const advertised = parseAdvertisement(await transport.advertisement('git-upload-pack'), 'git-upload-pack', transport.label);
  const selection = selectAdvertisedSessions(advertised.refs, wanted);
  const theirs = selection.sessions;
  for (const id of wanted ?? []) {
    if (!theirs.some((t) => t.id === id)) {
      throw new ForgeError('REMOTE_SESSION_NOT_FOUND', `Remote ${transport.label} has no session ${id} (no branch forge/session/${id}).`, { data: { remote: transport.label, session: id } });
    }
  }
  await checkNewRefCount(repo, name, theirs, transport.label);
  // A tip is asked for unless it reaches a complete history here: its commit alone may have been
  // stored by a fetch killed halfway (by an older version that stored parents first).
  const trusted = await trustedTips(repo);
  const wants: string[] = [];
  for (const { oid } of theirs) {
    if (wants.includes(oid)) continue;
    if (!(await repo.objects.has(oid)) || (await findUnconnected(repo, new Map(), [oid], trusted)) !== null) wants.push(oid);
  }
  let objects = 0;
  if (wants.length > 0) {
    const haves = await localTips(repo, name);
    const body = uploadPackRequest(wants, haves, advertised.capabilities);
    const answer = await transport.call('git-upload-pack', body);
    const pack = packFromUploadPackResponse(answer, advertised.capabilities.has('side-band-64k'), transport.label);
    const limits = options.limits ?? (await unpackLimits(repo));
    objects = (await receiveChecked(repo, pack, { inflate: options.inflate, remote: transport.label, limits, tips: wants, trusted })).length;
  }
  const sessions: FetchedSession[] = [];
  for (const { id, oid } of theirs) {
    const ref = trackingRef(name, id);
    const before = await repo.refs.resolve(ref);
    if (before !== oid) await moveTracking(repo, ref, oid, `fetch ${name}`);
    sessions.push({ session: id, ref, before, after: oid, status: before === null ? 'new' : before === oid ? 'up-to-date' : 'updated' });
  }
  return { remote: transport.label, name, sessions, objects, bytesReceived: transport.bytesReceived, warnings: [...transport.warnings, ...selection.warnings] };
}

/**
 * One fetch creates at most forge.fetchMaxNewRefs remote-tracking refs (a server advertising
 * 100,000 session branches would otherwise write 100,000 loose refs and reflogs); more is
 * refused before anything is requested or moved.
 */
async function checkNewRefCount(repo: Repository, name: string, theirs: readonly AdvertisedSession[], label: string): Promise<void> {
  const known = new Set((await repo.refs.list(`refs/remotes/${name}/forge/session/`)).map((r) => r.ref));
  const created = theirs.filter((t) => !known.has(trackingRef(name, t.id))).length;
  const max = await fetchMaxNewRefs(repo);
  if (created <= max) return;
  throw new ForgeError('REMOTE_TOO_MANY_REFS', `Remote ${label} advertises ${created} session branches this repository has not fetched, more than one fetch may create (${max}). Nothing was fetched.`, {
    data: { remote: label, new: created, max },
    hint: `Fetch the sessions you need by id (forge fetch ID…), or raise the limit: git config forge.fetchMaxNewRefs N (0: no limit).`,
  });
}

/**
 * The pack, unpacked: a pack that cannot be decoded (a delta out of bounds, an object that does
 * not match its entry) is the remote's fault, REMOTE_PACK_INVALID, not a Forge bug; local
 * conditions (a full disk) keep their own codes.
 */
/** receivePack, with a failure the remote caused never reported as a bug in Forge. */
async function receiveChecked(repo: Repository, pack: Uint8Array, options: ReceiveOptions): ReturnType<typeof receivePack> {
  const label = options.remote;
  try {
    return await receivePack(repo, pack, options);
  } catch (error) {
    const forgeError = toForgeError(error);
    if (forgeError.kind !== 'internal') throw forgeError;
    throw new ForgeError('REMOTE_PACK_INVALID', `The pack received from ${label} cannot be unpacked: ${quoteRemote(forgeError.message)} No ref moved.`, {
      data: { remote: label, cause: forgeError.code },
      hint: 'The server sent a damaged or malformed pack; nothing was moved. Retry, and report it to the server\'s administrator if it persists.',
    });
  }
}

/** Our branch tips and what we last fetched from this remote: commits the server likely has. */
async function localTips(repo: Repository, remote: string): Promise<string[]> {
  const tips = new Set<string>();
  for (const { oid } of await repo.refs.list(`refs/remotes/${remote}/`)) tips.add(oid);
  for (const { oid } of await repo.refs.list('refs/heads/')) tips.add(oid);
  return [...tips].slice(0, MAX_HAVES);
}
