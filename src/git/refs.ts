/**
 * Refs the way git stores them: loose files under the gitdir, then `packed-refs`.
 * Updates are compare-and-swap under git's own lock protocol: create `<ref>.lock` exclusively
 * (an existing lock, ours or git's, is REF_LOCKED and nothing is clobbered), check the current
 * value against the expected one, write, rename into place, append the reflog line.
 * isomorphic-git's writeRef is not used: it takes no lock and checks no old value.
 */
import { ForgeError, toForgeError } from '../errors';
import { dirname, errnoCode, joinPath, type GitFs } from './fs';
import { createExclusive, flushWrites, mkdirp } from './fs-capabilities';
import { formatSignature, type Signature } from './object-codec';
import { refNameProblem } from './ref-name';

export const ZERO_OID = '0000000000000000000000000000000000000000';
const OID = /^[0-9a-f]{40}$/;
const AUTO_REFLOG = /^(refs\/heads\/|refs\/remotes\/|refs\/notes\/|HEAD$)/;

export type RefValue = { oid: string } | { symbolic: string };

export interface RefUpdate {
  ref: string;
  newOid: string;
  /** The value the ref must have now; ZERO_OID: the ref must not exist. */
  expectedOid: string;
  reflogMessage: string;
  committer: Signature;
}

export interface PackedRef {
  oid: string;
  peeled?: string;
}

export class RefStore {
  private packedCache: { text: string; refs: Map<string, PackedRef> } | null = null;

  constructor(
    private readonly fs: GitFs,
    private readonly gitdir: string,
    /** core.logAllRefUpdates: whether to create reflogs that do not exist yet (git appends to existing ones regardless). */
    private readonly logAllRefUpdates: () => Promise<boolean>,
    /** Runs after a ref moved (the object store settles what it wrote: a concurrent gc may have pruned it). */
    private readonly afterUpdate: () => Promise<void> = async () => undefined,
    /** Runs before a ref is locked to move (the object store waits out a gc already running). */
    private readonly beforeUpdate: () => Promise<void> = async () => undefined,
    /** Asked again under the lock, just before the move: a gc started meanwhile means wait and retry. */
    private readonly racesGc: () => Promise<boolean> = async () => false,
    /**
     * Runs under the lock, just before the move: every object written since the last move must
     * be on disk (a `git prune` beside us holds no gc.pid to wait for), written again if not.
     */
    private readonly beforeMove: () => Promise<void> = async () => undefined,
  ) {}

  /** The raw value of one ref (not following symbolic refs), or null. */
  async read(ref: string): Promise<RefValue | null> {
    const loose = await this.readLoose(ref);
    if (loose !== undefined) return loose;
    const packed = (await this.packed()).get(ref);
    return packed ? { oid: packed.oid } : null;
  }

  /** Follows symbolic refs to an oid; null when the ref (or its target) does not exist. */
  async resolve(ref: string): Promise<string | null> {
    let name = ref;
    for (let depth = 0; depth < 10; depth++) {
      const value = await this.read(name);
      if (value === null) return null;
      if ('oid' in value) return value.oid;
      name = value.symbolic;
    }
    throw new ForgeError('REF_NOT_FOUND', `Symbolic ref ${ref} loops.`, { data: { ref } });
  }

  /** Full ref names under a prefix (e.g. "refs/heads/forge/session/"), loose and packed, sorted. */
  async list(prefix: string): Promise<Array<{ ref: string; oid: string }>> {
    const found = new Map<string, string>();
    for (const [ref, packed] of await this.packed()) if (ref.startsWith(prefix)) found.set(ref, packed.oid);
    const root = prefix.endsWith('/') ? prefix.slice(0, -1) : dirname(prefix);
    await this.walkLoose(root, found, prefix);
    return [...found.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([ref, oid]) => ({ ref, oid }));
  }

  async update(update: RefUpdate): Promise<void> {
    // A gc that started between the wait before the lock and the move would have walked the refs
    // without this move: the lock is given back, the gc waited out, and the update tried again.
    for (let attempt = 0; ; attempt++) {
      if (await this.tryUpdate(update, attempt < 3)) return;
    }
  }

  /** One locked attempt; false when it stood back for a gc that started (`yieldToGc`). */
  private async tryUpdate(update: RefUpdate, yieldToGc: boolean): Promise<boolean> {
    const { ref, newOid, expectedOid } = update;
    const problem = refNameProblem(ref);
    if (problem !== null || !ref.startsWith('refs/')) {
      throw new ForgeError('REF_INVALID_NAME', `"${ref}" is not a valid ref name: ${problem ?? 'it must start with refs/'}.`, { data: { ref } });
    }
    if (!OID.test(newOid) || !OID.test(expectedOid)) throw new ForgeError('INVALID_ARGUMENT', 'Ref updates take full 40-character oids.');
    const path = joinPath(this.gitdir, ref);
    const lock = `${path}.lock`;
    await this.beforeUpdate();
    await this.mkdirFor(path, ref);
    try {
      await createExclusive(this.fs, lock, `${newOid}\n`);
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') {
        throw new ForgeError('REF_LOCKED', `Ref ${ref} is locked: ${lock} exists. Another process is updating it; if none is, remove the stale lock file.`, {
          data: { ref, lock },
          hint: 'Retry shortly; remove the .lock file only if no git or forge process is running.',
        });
      }
      throw toForgeError(error);
    }
    let renamed = false;
    try {
      const current = await this.read(ref);
      const currentOid = current === null ? ZERO_OID : 'oid' in current ? current.oid : null;
      if (currentOid !== expectedOid) {
        throw new ForgeError('REF_CAS_FAILED', `Ref ${ref} moved: expected ${expectedOid === ZERO_OID ? 'it not to exist' : expectedOid} but it is ${currentOid ?? 'symbolic'}.`, {
          data: { ref, expected: expectedOid, actual: currentOid },
          hint: 'Someone else committed to this branch; re-open the session to continue from the new head.',
        });
      }
      if (yieldToGc && (await this.racesGc())) return false;
      await this.beforeMove();
      await this.appendReflog(ref, expectedOid, newOid, update.committer, update.reflogMessage);
      await this.fs.promises.rename(lock, path);
      renamed = true;
    } finally {
      if (!renamed) await this.fs.promises.unlink(lock).catch(() => undefined);
    }
    await this.afterUpdate();
    // Reported done only once it would survive a closed tab (lightning-fs buffers its directory tree).
    await flushWrites(this.fs);
    return true;
  }

  /**
   * Deletes a ref if it still has the expected value, under the same lock protocol; a packed
   * copy (git gc packs every ref) is removed from packed-refs too, under packed-refs.lock.
   * A ref that does not exist is left alone.
   */
  async delete(ref: string, expectedOid?: string): Promise<void> {
    const path = joinPath(this.gitdir, ref);
    const lock = `${path}.lock`;
    if ((await this.read(ref)) === null) return;
    await this.mkdirFor(path, ref);
    try {
      await createExclusive(this.fs, lock, '');
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'EEXIST') throw new ForgeError('REF_LOCKED', `Ref ${ref} is locked: ${lock} exists.`, { data: { ref, lock }, hint: 'Retry shortly; remove the .lock file only if no git or forge process is running.' });
      throw toForgeError(error);
    }
    try {
      const current = await this.read(ref);
      if (current === null) return;
      const currentOid = 'oid' in current ? current.oid : null;
      if (expectedOid !== undefined && currentOid !== expectedOid) {
        throw new ForgeError('REF_CAS_FAILED', `Ref ${ref} moved: expected ${expectedOid} but it is ${currentOid ?? 'symbolic'}.`, { data: { ref, expected: expectedOid, actual: currentOid } });
      }
      if ((await this.packed()).has(ref)) await this.removePacked(ref);
      await this.fs.promises.unlink(path).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
      });
    } finally {
      await this.fs.promises.unlink(lock).catch(() => undefined);
    }
    await flushWrites(this.fs);
  }

  private async removePacked(ref: string): Promise<void> {
    const packedPath = joinPath(this.gitdir, 'packed-refs');
    const lock = `${packedPath}.lock`;
    try {
      await createExclusive(this.fs, lock, '');
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') throw new ForgeError('REF_LOCKED', `packed-refs is locked: ${lock} exists.`, { data: { ref, lock }, hint: 'Retry shortly; remove the .lock file only if no git or forge process is running.' });
      throw toForgeError(error);
    }
    let renamed = false;
    try {
      const text = await this.fs.promises.readFile(packedPath, 'utf8');
      const out: string[] = [];
      let dropping = false;
      for (const line of text.split('\n')) {
        if (line.startsWith('^')) {
          if (!dropping) out.push(line);
          continue;
        }
        dropping = line.endsWith(` ${ref}`) && !line.startsWith('#');
        if (!dropping) out.push(line);
      }
      await this.fs.promises.writeFile(lock, out.join('\n'));
      await this.fs.promises.rename(lock, packedPath);
      renamed = true;
      this.packedCache = null;
    } finally {
      if (!renamed) await this.fs.promises.unlink(lock).catch(() => undefined);
    }
  }

  /** Writes a symbolic ref (HEAD-style); used when initializing repositories. */
  async writeSymbolic(ref: string, target: string): Promise<void> {
    await this.fs.promises.writeFile(joinPath(this.gitdir, ref), `ref: ${target}\n`);
  }

  private async readLoose(ref: string): Promise<RefValue | null | undefined> {
    let text: string;
    try {
      text = await this.fs.promises.readFile(joinPath(this.gitdir, ref), 'utf8');
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
      throw toForgeError(error);
    }
    text = text.trim();
    if (text.startsWith('ref:')) return { symbolic: text.slice(4).trim() };
    if (OID.test(text)) return { oid: text };
    // Never quoted: a name that reached a file that is not a ref must not show its content.
    throw new ForgeError('OBJECT_CORRUPT', `Ref ${ref} is neither an oid nor a symbolic ref (its file holds something else).`, { data: { ref } });
  }

  private async packed(): Promise<Map<string, PackedRef>> {
    let text = '';
    try {
      text = await this.fs.promises.readFile(joinPath(this.gitdir, 'packed-refs'), 'utf8');
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
    }
    if (this.packedCache && this.packedCache.text === text) return this.packedCache.refs;
    const refs = new Map<string, PackedRef>();
    let last: PackedRef | undefined;
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || line.length === 0) continue;
      if (line.startsWith('^')) {
        if (last) last.peeled = line.slice(1).trim();
        continue;
      }
      const [oid, name] = line.split(' ');
      if (oid && name && OID.test(oid)) {
        last = { oid };
        refs.set(name, last);
      }
    }
    this.packedCache = { text, refs };
    return refs;
  }

  private async walkLoose(dir: string, found: Map<string, string>, prefix: string): Promise<void> {
    let names: string[];
    try {
      names = await this.fs.promises.readdir(joinPath(this.gitdir, dir));
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw toForgeError(error);
    }
    for (const name of names) {
      if (name.endsWith('.lock')) continue;
      const ref = `${dir}/${name}`;
      const stat = await this.fs.promises.stat(joinPath(this.gitdir, ref));
      if (stat.isDirectory()) {
        await this.walkLoose(ref, found, prefix);
      } else if (ref.startsWith(prefix)) {
        const value = await this.readLoose(ref).catch(() => undefined);
        if (value && 'oid' in value) found.set(ref, value.oid);
      }
    }
  }

  private async mkdirFor(path: string, ref: string): Promise<void> {
    try {
      await mkdirp(this.fs, dirname(path));
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'EEXIST' || code === 'ENOTDIR') {
        throw new ForgeError('REF_INVALID_NAME', `Ref ${ref} cannot be created: a ref with the name of one of its parent directories exists.`, { data: { ref } });
      }
      throw toForgeError(error);
    }
  }

  /** The values a ref's reflog records, newest first (none when it keeps no reflog). */
  async reflogValues(ref: string): Promise<string[]> {
    const text = await this.fs.promises.readFile(joinPath(this.gitdir, 'logs', ref), 'utf8').catch(() => '');
    const out: string[] = [];
    for (const line of String(text).split('\n').reverse()) {
      const [oldOid, newOid] = line.split(' ', 2);
      for (const oid of [newOid, oldOid]) if (oid !== undefined && OID.test(oid) && oid !== ZERO_OID && !out.includes(oid)) out.push(oid);
    }
    return out;
  }

  /**
   * Removes the reflog entries that name `oid` (as `git reflog expire --stale-fix` drops entries
   * naming broken commits): a reflog naming an object gc pruned fails `git fsck`.
   */
  async dropReflogEntries(ref: string, oid: string): Promise<void> {
    const logPath = joinPath(this.gitdir, 'logs', ref);
    const text = String(await this.fs.promises.readFile(logPath, 'utf8').catch(() => ''));
    if (!text.includes(oid)) return;
    const kept = text.split('\n').filter((line) => {
      const [oldOid, newOid] = line.split(' ', 2);
      return oldOid !== oid && newOid !== oid;
    });
    const temp = `${logPath}.forge-${Date.now()}.tmp`;
    try {
      await this.fs.promises.writeFile(temp, kept.join('\n'));
      await this.fs.promises.rename(temp, logPath);
    } catch (error) {
      await this.fs.promises.unlink(temp).catch(() => undefined);
      throw toForgeError(error);
    }
  }

  private async appendReflog(ref: string, oldOid: string, newOid: string, who: Signature, message: string): Promise<void> {
    const logPath = joinPath(this.gitdir, 'logs', ref);
    const exists = await this.fs.promises.stat(logPath).then(
      () => true,
      () => false,
    );
    // git creates a reflog only for branches, remote-tracking refs, notes and HEAD
    // (core.logAllRefUpdates=true); forge's own refs/forge/* keep none.
    if (!exists && (!AUTO_REFLOG.test(ref) || !(await this.logAllRefUpdates()))) return;
    const line = `${oldOid} ${newOid} ${formatSignature(who)}\t${message.split('\n')[0]}\n`;
    await mkdirp(this.fs, dirname(logPath));
    if (this.fs.promises.appendFile) {
      await this.fs.promises.appendFile(logPath, line);
    } else {
      const before = exists ? await this.fs.promises.readFile(logPath, 'utf8') : '';
      await this.fs.promises.writeFile(logPath, before + line);
    }
  }
}
