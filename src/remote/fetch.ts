/**
 * Fetching session branches into `refs/remotes/<remote>/forge/session/<id>`: one upload-pack
 * request wanting the tips we lack and naming our own tips as haves, the pack unpacked through
 * the object store, and only then the remote-tracking refs moved (compare-and-swap), so a ref
 * never points at an object that is not there.
 */
import { ForgeError } from '../errors';
import type { Repository } from '../git';
import { parseAdvertisement } from './advertisement';
import { findUnconnected, trustedTips } from './connectivity';
import type { StreamInflater, UnpackLimits } from './pack-unpack';
import { receivePack, unpackLimits } from './received-objects';
import { moveTracking } from './push';
import { checkSessionId, openRemote, SESSION_HEADS, trackingRef, type RemoteOptions } from './remote';
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
  const theirs: Array<{ id: string; oid: string }> = [];
  for (const [ref, oid] of advertised.refs) {
    if (!ref.startsWith(SESSION_HEADS)) continue;
    const id = ref.slice(SESSION_HEADS.length);
    if (wanted === undefined || wanted.includes(id)) theirs.push({ id, oid });
  }
  for (const id of wanted ?? []) {
    if (!theirs.some((t) => t.id === id)) {
      throw new ForgeError('REMOTE_SESSION_NOT_FOUND', `Remote ${transport.label} has no session ${id} (no branch forge/session/${id}).`, { data: { remote: transport.label, session: id } });
    }
  }
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
    objects = (await receivePack(repo, pack, { inflate: options.inflate, remote: transport.label, limits, tips: wants, trusted })).length;
  }
  const sessions: FetchedSession[] = [];
  for (const { id, oid } of theirs) {
    const ref = trackingRef(name, id);
    const before = await repo.refs.resolve(ref);
    if (before !== oid) await moveTracking(repo, ref, oid, `fetch ${name}`);
    sessions.push({ session: id, ref, before, after: oid, status: before === null ? 'new' : before === oid ? 'up-to-date' : 'updated' });
  }
  return { remote: transport.label, name, sessions, objects, bytesReceived: transport.bytesReceived };
}

/** Our branch tips and what we last fetched from this remote: commits the server likely has. */
async function localTips(repo: Repository, remote: string): Promise<string[]> {
  const tips = new Set<string>();
  for (const { oid } of await repo.refs.list(`refs/remotes/${remote}/`)) tips.add(oid);
  for (const { oid } of await repo.refs.list('refs/heads/')) tips.add(oid);
  return [...tips].slice(0, MAX_HAVES);
}
