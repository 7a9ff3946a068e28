/**
 * One writer per session: a lease file under the gitdir (`forge/pending/<id>.lease`) naming
 * the process that holds the session's pending layer (pid, host, a per-process token). A
 * second process that opens the session for writing gets SESSION_BUSY naming the holder. A
 * lease whose holder is gone (same host, pid not running) is taken over; one held on another
 * host, or where liveness cannot be probed (a browser), is never taken silently.
 *
 * Within one process the lease is shared: several Session objects of one session in one process
 * are the library user's to coordinate, as before. Every journal write checks that the lease is
 * still this process's (`assertHeld`), so a process whose lease was taken over stops writing
 * instead of clobbering the new holder's journal.
 */
import { ForgeError, toForgeError } from '../errors';
import { createExclusive, dirname, errnoCode, joinPath, mkdirp, type GitFs, type ProcessInfo } from '../git';

interface LeaseRecord {
  pid: number;
  host: string;
  token: string;
  since: string;
}

/** This process's token: a pid can be reused, a random token per process cannot. */
const PROCESS_TOKEN = randomToken();

/** Holders of each lease file within this process: the file goes when the last lets go. */
const holdersInProcess = new Map<string, number>();

const UNKNOWN_PROCESS: ProcessInfo = { pid: 0, host: 'unknown', isAlive: () => undefined };
const TAKEOVER_ATTEMPTS = 4;

export class SessionLease {
  private readonly path: string;
  private readonly me: ProcessInfo;

  constructor(
    private readonly fs: GitFs,
    commonDir: string,
    private readonly sessionId: string,
    processInfo: ProcessInfo | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.path = joinPath(commonDir, 'forge', 'pending', `${sessionId}.lease`);
    this.me = processInfo ?? UNKNOWN_PROCESS;
  }

  get file(): string {
    return this.path;
  }

  /**
   * Takes the lease (or confirms this process has it); SESSION_BUSY when a live process holds it.
   * true when this process did not hold it before (whatever another process left is to be read).
   */
  async acquire(): Promise<boolean> {
    const taken = await this.take();
    holdersInProcess.set(this.path, (holdersInProcess.get(this.path) ?? 0) + 1);
    return taken;
  }

  private async take(): Promise<boolean> {
    const mine: LeaseRecord = { pid: this.me.pid, host: this.me.host, token: PROCESS_TOKEN, since: this.now().toISOString() };
    for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt++) {
      if (await this.createExclusive(mine)) return true;
      const text = await this.readText();
      if (text === undefined) continue; // released meanwhile: try again
      const holder = parseLease(text);
      if (holder !== null && holder.token === PROCESS_TOKEN) return false;
      if (holder !== null && !this.isStale(holder)) throw this.busy(holder);
      // A dead holder's lease (or an unreadable one): move it aside, then create ours.
      await this.takeAside(text);
    }
    const holder = await this.read();
    throw this.busy(holder ?? null);
  }

  /**
   * Whether no live process can be writing the session now: no holder in this process, and the
   * lease free or left by a holder known to be gone. An unreadable lease, or one held on another
   * host, is not known to be free.
   */
  async noLiveHolder(): Promise<boolean> {
    if (holdersInProcess.has(this.path)) return false;
    const holder = await this.read().catch(() => null);
    return holder === undefined || (holder !== null && this.isStale(holder));
  }

  /** Throws SESSION_BUSY when the lease is no longer this process's (taken over, or removed). */
  async assertHeld(): Promise<void> {
    const holder = await this.read();
    if (holder?.token === PROCESS_TOKEN) return;
    throw new ForgeError('SESSION_BUSY', `This process no longer holds session ${this.sessionId}: ${holder ? `${describe(holder)} took it over` : 'its lease was removed (forge session discard --force?)'}. Nothing was written.`, {
      data: { session: this.sessionId, ...(holder ? { holder: { pid: holder.pid, host: holder.host, since: holder.since } } : {}) },
      hint: `Re-open the session (restart this forge process) to continue from what the other process left.`,
    });
  }

  /** Gives one hold up; the file goes when no holder in this process is left. */
  async release(): Promise<void> {
    const left = (holdersInProcess.get(this.path) ?? 1) - 1;
    if (left > 0) {
      holdersInProcess.set(this.path, left);
      return;
    }
    holdersInProcess.delete(this.path);
    const holder = await this.read().catch(() => null);
    if (holder?.token !== PROCESS_TOKEN) return;
    await this.fs.promises.unlink(this.path).catch(() => undefined);
  }

  /** Removes whoever's lease it is (forced discard); the holder's next write fails with SESSION_BUSY. */
  async breakLease(): Promise<void> {
    await this.fs.promises.unlink(this.path).catch((error: unknown) => {
      if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
    });
  }

  /** The holder; null: unreadable; undefined: no lease. */
  async read(): Promise<LeaseRecord | null | undefined> {
    const text = await this.readText();
    return text === undefined ? undefined : parseLease(text);
  }

  private async readText(): Promise<string | undefined> {
    try {
      return await this.fs.promises.readFile(this.path, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return undefined;
      throw toForgeError(error);
    }
  }

  /** Whether a live process could still hold it: only a process of this host, known gone, is stale. */
  private isStale(holder: LeaseRecord): boolean {
    return holder.host === this.me.host && this.me.isAlive(holder.pid) === false;
  }

  private async createExclusive(record: LeaseRecord): Promise<boolean> {
    await mkdirp(this.fs, dirname(this.path));
    try {
      // Exclusive on every supported fs (lightning-fs ignores `wx`: see git/fs-capabilities.ts).
      await createExclusive(this.fs, this.path, JSON.stringify(record) + '\n');
      return true;
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') return false;
      throw toForgeError(error);
    }
  }

  /**
   * Moves a dead holder's lease out of the way with an atomic rename, then checks that what
   * was moved is the lease judged stale: if another process took it over in between, its fresh
   * lease is put back (when nothing has replaced it) and the caller looks again.
   */
  private async takeAside(judged: string): Promise<void> {
    const aside = `${this.path}.${PROCESS_TOKEN}.stale`;
    try {
      await this.fs.promises.rename(this.path, aside);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw toForgeError(error);
    }
    const moved = await this.fs.promises.readFile(aside, 'utf8').catch(() => '');
    if (moved !== judged && (await this.readText()) === undefined) {
      await this.fs.promises.rename(aside, this.path).catch(() => undefined);
      return;
    }
    await this.fs.promises.unlink(aside).catch(() => undefined);
  }

  private busy(holder: LeaseRecord | null): ForgeError {
    const who = holder ? describe(holder) : 'another process (its lease file is unreadable)';
    return new ForgeError('SESSION_BUSY', `Session ${this.sessionId} is open for writing in ${who}; one writer per session at a time.`, {
      data: { session: this.sessionId, lease: this.path, ...(holder ? { holder: { pid: holder.pid, host: holder.host, since: holder.since } } : {}) },
      hint: `Stop that process (or wait for it to finish), or work in another session. If it is gone and was on another machine, "forge session discard ${this.sessionId} --force" or removing ${this.path} frees the session.`,
    });
  }
}

function parseLease(text: string): LeaseRecord | null {
  try {
    const parsed = JSON.parse(text) as LeaseRecord;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.token === 'string' ? parsed : null;
  } catch {
    return null; // torn by a crash mid-write
  }
}

function describe(holder: LeaseRecord): string {
  return `process ${holder.pid} on ${holder.host} (since ${holder.since})`;
}

function randomToken(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
