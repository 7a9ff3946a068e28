/**
 * One writer per session: a lease file under the gitdir (`forge/pending/<id>.lease`) naming
 * the process that holds the session's pending layer (pid, host, a per-process token). A
 * second process that opens the session for writing gets SESSION_BUSY naming the holder. A
 * lease whose holder is gone (same host, pid not running) is taken over; one held on another
 * host, or where liveness cannot be probed, is never taken silently.
 *
 * In a browser (no ProcessInfo, and the Web Locks API) a pid means nothing: the holder is the tab
 * (or worker), and the lease file is backed by a Web Lock named after it, held from the lease's
 * taking until it is given up or the tab goes (the browser lets go of a closed or reloaded tab's
 * locks). A second live tab cannot get that lock: SESSION_BUSY. A tab that gets it while the file
 * names another tab knows that tab is gone, and takes its lease over with its journal, so a
 * reloaded tab gets its session back with its pending edits.
 *
 * Within one process the lease is shared: several Session objects of one session in one process
 * are the library user's to coordinate, as before. Every tool call and every journal write (in
 * a `forge turn`'s batch: every call) checks that the lease is still this process's
 * (`assertHeld`), so a process whose lease was taken over stops writing instead of clobbering
 * the new holder's journal.
 */
import { ForgeError, toForgeError } from '../errors';
import { createExclusive, dirname, errnoCode, flushWrites, joinPath, mkdirp, type GitFs, type ProcessInfo } from '../git';

export interface LeaseRecord {
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
/** The host a tab's lease names: its liveness is its Web Lock, not a pid. */
const TAB_HOST = 'browser-tab';
const TAB_PROCESS: ProcessInfo = { pid: 0, host: TAB_HOST, isAlive: () => undefined };
const TAKEOVER_ATTEMPTS = 4;

interface LockManagerLike {
  request(name: string, options: { ifAvailable?: boolean; steal?: boolean }, callback: (lock: unknown) => unknown): Promise<unknown>;
}

/**
 * The Web Locks API of a browser tab or worker; null in Node (whose navigator.locks, where it
 * has one, is private to one process, so it could not tell that another process still runs).
 */
function tabLocks(): LockManagerLike | null {
  const g = globalThis as { navigator?: { locks?: LockManagerLike }; process?: { versions?: { node?: string } } };
  if (g.process?.versions?.node !== undefined) return null;
  const locks = g.navigator?.locks;
  return locks && typeof locks.request === 'function' ? locks : null;
}

/** The Web Locks this tab holds for its leases, by lease file: each lets go of its lock. */
const tabHolds = new Map<string, () => void>();

/** Takes the lock if no one holds it and keeps it until the returned function is called; null when held. */
function holdLock(locks: LockManagerLike, name: string, onLost: () => void): Promise<(() => void) | null> {
  return new Promise((resolve, reject) => {
    let granted = false;
    locks
      .request(name, { ifAvailable: true }, (lock) => {
        if (lock === null) return resolve(null);
        granted = true;
        return new Promise<void>((release) => resolve(() => release()));
      })
      // Rejected once granted: another tab stole it (a forced discard).
      .catch((error: unknown) => (granted ? onLost() : reject(error)));
  });
}

export class SessionLease {
  private readonly path: string;
  private readonly me: ProcessInfo;
  /** Set in a browser: the lease is backed by a Web Lock held for the tab's life. */
  private readonly locks: LockManagerLike | null;

  constructor(
    private readonly fs: GitFs,
    commonDir: string,
    private readonly sessionId: string,
    processInfo: ProcessInfo | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.path = joinPath(commonDir, 'forge', 'pending', `${sessionId}.lease`);
    this.locks = processInfo === undefined ? tabLocks() : null;
    this.me = processInfo ?? (this.locks ? TAB_PROCESS : UNKNOWN_PROCESS);
  }

  private get lockName(): string {
    return `forge-engine:lease:${this.path}`;
  }

  get file(): string {
    return this.path;
  }

  /**
   * Takes the lease (or confirms this process has it); SESSION_BUSY when a live process holds it.
   * true when this process did not hold it before (whatever another process left is to be read).
   */
  async acquire(): Promise<boolean> {
    const lockTaken = await this.holdTabLock();
    let taken: boolean;
    try {
      taken = await this.take();
    } catch (error) {
      if (lockTaken) this.letGoOfTabLock();
      throw error;
    }
    holdersInProcess.set(this.path, (holdersInProcess.get(this.path) ?? 0) + 1);
    return taken;
  }

  /** In a browser: this tab's Web Lock for the lease, or SESSION_BUSY while a live tab holds it. true when taken now. */
  private async holdTabLock(): Promise<boolean> {
    if (this.locks === null || tabHolds.has(this.path)) return false;
    const release = await holdLock(this.locks, this.lockName, () => {
      if (tabHolds.get(this.path) === release) tabHolds.delete(this.path);
    });
    if (release === null) throw this.busy((await this.read().catch(() => null)) ?? null);
    tabHolds.set(this.path, release);
    return true;
  }

  private letGoOfTabLock(): void {
    tabHolds.get(this.path)?.();
    tabHolds.delete(this.path);
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

  /**
   * Throws SESSION_BUSY when the lease is no longer this process's (taken over, or removed).
   * `holder`: the lease as the caller just read it (one read per check, not two).
   */
  async assertHeld(holder?: LeaseRecord | null): Promise<void> {
    if (holder === undefined) holder = await this.read();
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
    try {
      const holder = await this.read().catch(() => null);
      if (holder?.token !== PROCESS_TOKEN) return;
      await this.fs.promises.unlink(this.path).catch(() => undefined);
      await flushWrites(this.fs);
    } finally {
      this.letGoOfTabLock();
    }
  }

  /** Removes whoever's lease it is (forced discard); the holder's next write fails with SESSION_BUSY. */
  async breakLease(): Promise<void> {
    if (this.locks !== null) {
      // The holding tab's lock is taken from it (and given up at once): its next write finds the file gone.
      this.letGoOfTabLock();
      await this.locks.request(this.lockName, { steal: true }, () => undefined);
    }
    await this.fs.promises.unlink(this.path).catch((error: unknown) => {
      if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
    });
    await flushWrites(this.fs);
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
    // A tab's lease: this tab holds its Web Lock now, so the tab that wrote it is gone.
    if (this.locks !== null) return holder.host === TAB_HOST;
    return holder.host === this.me.host && this.me.isAlive(holder.pid) === false;
  }

  private async createExclusive(record: LeaseRecord): Promise<boolean> {
    await mkdirp(this.fs, dirname(this.path));
    try {
      // Exclusive on every supported fs (lightning-fs ignores `wx`: see git/fs-capabilities.ts).
      await createExclusive(this.fs, this.path, JSON.stringify(record) + '\n');
      await flushWrites(this.fs);
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
    const who = holder ? describe(holder) : this.locks !== null ? 'another live tab or worker of this origin' : 'another process (its lease file is unreadable)';
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
  if (holder.host === TAB_HOST) return `another live tab or worker of this origin (since ${holder.since})`;
  return `process ${holder.pid} on ${holder.host} (since ${holder.since})`;
}

function randomToken(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
