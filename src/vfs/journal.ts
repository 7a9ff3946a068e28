/**
 * The pending set's journal: an append-only JSON-lines file under the gitdir
 * (`forge/pending/<key>.jsonl`), so a crash mid-turn loses no edit. Blobs are in the object
 * store before their line is appended; a torn last line (a crash mid-append) is ignored.
 *
 * Line 1 is a header {v, base, owner}; then records. A tool call is ONE record
 * `{"c": [changes], "state": delta}`: its file changes and the state record that says what the
 * call did (read hashes, the call itself) land together or not at all, so a crash can never
 * keep an edit without its record (older journals hold one line per change or state: still read).
 * `owner` is the id of the view that last rewrote the file: a view clears the journal after a
 * commit only if it still owns it.
 *
 * A failed append (ENOSPC half-way through a line) is cut back to the last whole line; where
 * that is not possible, the next write rewrites the journal whole. Loading keeps every whole
 * record before the first unreadable line (a tear) and reports it; only an unreadable header
 * is JOURNAL_CORRUPT.
 */
import { ForgeError, toForgeError } from '../errors';
import { dirname, errnoCode, flushWrites, hasSyncApi, joinPath, mkdirp, type GitFs } from '../git';
import type { FileMode } from './types';

export type JournalEntry = { path: string; oid: string; mode: FileMode } | { path: string; deleted: true } | { path: string; reverted: true };

export interface JournalContent {
  base: string;
  owner: string;
  changes: Map<string, { oid: string; mode: FileMode } | null>;
  /** State records journaled with the pending set, in order (the session's in-turn state). */
  states: unknown[];
  /** Set when the file had an unreadable line: the records from it on were dropped. */
  torn?: { line: number; dropped: number };
}

/** One atomic journal line: the changes of one tool call and its state record. */
export interface JournalRecord {
  changes?: readonly JournalEntry[];
  state?: unknown;
}

export interface Journal {
  load(): Promise<JournalContent | null>;
  /** Starts a fresh file holding exactly this content (and makes `owner` its owner). */
  rewrite(content: JournalContent): Promise<void>;
  /**
   * Appends one line; false (nothing written) when the journal file is gone, e.g. removed by
   * another view of the same session that committed: the caller then rewrites it whole.
   */
  append(entry: JournalEntry): Promise<boolean>;
  appendState(state: unknown): Promise<boolean>;
  /** Appends changes and a state record as one line (all or nothing); false as for append. */
  appendRecord(record: JournalRecord): Promise<boolean>;
  /**
   * Appends records as lines, a few writes of ~1 MiB (a batch's records, held until its pin);
   * false as for append. A failed write is cut back to the last whole line: the first records
   * may stay.
   */
  appendRecords(records: readonly JournalRecord[]): Promise<boolean>;
  /** Removes the file if `owner` still owns it; with no owner, unconditionally. */
  clear(owner?: string): Promise<void>;
}

/** appendRecords writes its lines in runs of about this many characters. */
const APPEND_RUN_CHARS = 1 << 20;
/** A header line is ~120 bytes (two ids); read in pieces this big until its newline. */
const HEADER_READ_BYTES = 4096;

/** A journal rewrite takes milliseconds: a temporary file this old is no live writer's. */
const STALE_TEMPORARY_MS = 10_000;

interface Header {
  v: 1;
  base: string;
  owner: string;
}

export class FsJournal implements Journal {
  private readonly path: string;
  /** The file's length after our last successful write, to cut a torn append back to. */
  private size: number | undefined;

  constructor(
    private readonly fs: GitFs,
    gitdir: string,
    key: string,
  ) {
    this.path = joinPath(gitdir, 'forge', 'pending', `${key}.jsonl`);
  }

  load(): Promise<JournalContent | null> {
    return this.loadFrom(this.path);
  }

  private async loadFrom(path: string): Promise<JournalContent | null> {
    let read: unknown;
    try {
      read = await this.fs.promises.readFile(path, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw toForgeError(error);
    }
    // lightning-fs answers undefined for a file its saved directory tree names but whose bytes
    // never reached IndexedDB (a tab closed mid-write): like an empty file, nothing was journaled.
    const text = typeof read === 'string' ? read : '';
    if (text === '') {
      if (path === this.path) this.size = undefined;
      return null;
    }
    const lines = text.split('\n');
    let header: Header;
    try {
      header = JSON.parse(lines[0]!) as Header;
    } catch (error) {
      throw corruptHeader(path, error);
    }
    if (typeof header !== 'object' || header === null || header.v !== 1 || typeof header.base !== 'string' || typeof header.owner !== 'string') {
      throw corruptHeader(path);
    }
    const content: JournalContent = { base: header.base, owner: header.owner, changes: new Map(), states: [] };
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === '') continue;
      const record = parseRecord(line);
      if (record === null) {
        // A torn record (a crash or a full disk mid-append, a cut that still parses as JSON):
        // every whole record before it stands.
        content.torn = { line: i + 1, dropped: lines.slice(i).filter((l) => l !== '').length };
        break;
      }
      for (const change of record.changes) applyEntry(content, change);
      if (record.hasState) content.states.push(record.state);
    }
    if (path === this.path) this.size = text.length === 0 ? undefined : byteLength(text);
    return content;
  }

  /**
   * A process killed while rewriting the journal leaves its temporary file
   * (`<key>.jsonl.<owner>.tmp`) behind. The caller knows that no live process holds the session
   * (its lease is free or its holder gone); files younger than `olderThanMs` are left anyway, as
   * a writer that took the session since could be between its write and its rename. Returns the
   * names removed.
   */
  async removeStaleTemporaries(olderThanMs = STALE_TEMPORARY_MS, now = Date.now()): Promise<string[]> {
    const dir = dirname(this.path);
    const prefix = `${this.path.slice(dir.length + 1)}.`;
    const names = await this.fs.promises.readdir(dir).catch(() => [] as string[]);
    const removed: string[] = [];
    for (const name of names) {
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
      const path = joinPath(dir, name);
      const mtime = (await this.fs.promises.stat(path).catch(() => null))?.mtimeMs;
      if (mtime === undefined || now - mtime < olderThanMs) continue;
      await this.fs.promises.unlink(path).then(
        () => removed.push(name),
        () => undefined,
      );
    }
    return removed;
  }

  async rewrite(content: JournalContent): Promise<void> {
    const lines = [JSON.stringify({ v: 1, base: content.base, owner: content.owner } satisfies Header)];
    for (const [path, change] of content.changes) {
      lines.push(JSON.stringify(change === null ? { path, deleted: true } : { path, oid: change.oid, mode: change.mode }));
    }
    for (const state of content.states) lines.push(JSON.stringify({ state }));
    const tmp = `${this.path}.${content.owner}.tmp`;
    const text = lines.join('\n') + '\n';
    await mkdirp(this.fs, dirname(this.path));
    try {
      await this.fs.promises.writeFile(tmp, text);
      await this.fs.promises.rename(tmp, this.path);
    } catch (error) {
      // The old journal is untouched: the rename is what replaces it.
      await this.fs.promises.unlink(tmp).catch(() => undefined);
      throw toForgeError(error);
    }
    this.size = byteLength(text);
    await flushWrites(this.fs);
  }

  append(entry: JournalEntry): Promise<boolean> {
    return this.appendLine(JSON.stringify(entry));
  }

  appendState(state: unknown): Promise<boolean> {
    return this.appendLine(JSON.stringify({ state }));
  }

  appendRecord(record: JournalRecord): Promise<boolean> {
    return this.appendLine(recordLine(record));
  }

  async appendRecords(records: readonly JournalRecord[]): Promise<boolean> {
    // In runs of ~1 MiB: a long batch's records as one string were tens of MiB at once.
    let run: string[] = [];
    let chars = 0;
    for (const record of records) {
      const line = recordLine(record);
      run.push(line);
      chars += line.length;
      if (chars < APPEND_RUN_CHARS) continue;
      if (!(await this.appendLine(run.join('\n')))) return false;
      run = [];
      chars = 0;
    }
    return run.length === 0 || this.appendLine(run.join('\n'));
  }

  async clear(owner?: string): Promise<void> {
    const unlink = (path: string) =>
      this.fs.promises.unlink(path).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
      });
    if (owner === undefined) {
      await unlink(this.path);
      return flushWrites(this.fs);
    }
    // Take the file out of the way first (rename is atomic), then see whose it is: checking and
    // then unlinking in place could remove a journal another writer (the loser of a commit race)
    // renamed into place between the two steps.
    const taken = `${this.path}.${owner}.clearing`;
    try {
      await this.fs.promises.rename(this.path, taken);
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return;
      throw toForgeError(error);
    }
    const current = await this.ownerOf(taken).catch(() => null);
    if (current !== null && current !== owner) {
      // Another writer's journal: put it back, unless an even newer one has appeared meanwhile.
      const newer = await this.fs.promises.lstat(this.path).then(
        () => true,
        () => false,
      );
      if (!newer) return this.fs.promises.rename(taken, this.path);
    }
    await unlink(taken);
    await flushWrites(this.fs);
  }

  /**
   * The owner its header names, or null for a file without a readable header (as load would
   * find nothing). Read from the file's start only where the fs can: a long turn's journal is
   * tens of megabytes, read and parsed whole just for its first line at every commit.
   */
  private async ownerOf(path: string): Promise<string | null> {
    if (!hasSyncApi(this.fs)) return (await this.loadFrom(path))?.owner ?? null;
    const fd = this.fs.openSync(path, 'r');
    let head = new Uint8Array(0);
    try {
      for (;;) {
        const chunk = new Uint8Array(HEADER_READ_BYTES);
        const n = this.fs.readSync(fd, chunk, 0, chunk.length, head.length);
        const joined = new Uint8Array(head.length + n);
        joined.set(head);
        joined.set(chunk.subarray(0, n), head.length);
        head = joined;
        if (n === 0 || head.includes(10)) break;
      }
    } finally {
      this.fs.closeSync(fd);
    }
    const end = head.indexOf(10);
    const text = new TextDecoder().decode(end === -1 ? head : head.subarray(0, end));
    if (text === '') return null;
    let header: Header;
    try {
      header = JSON.parse(text) as Header;
    } catch {
      return null;
    }
    return typeof header === 'object' && header !== null && header.v === 1 && typeof header.base === 'string' && typeof header.owner === 'string' ? header.owner : null;
  }

  private async appendLine(line: string): Promise<boolean> {
    // Appending to a missing file would create a journal without its header (and without the
    // changes before this one): let the caller rewrite it instead.
    const data = line + '\n';
    try {
      if (hasSyncApi(this.fs)) {
        // Two plain syscalls per line: a tool call appends a line, a big turn thousands.
        if (!this.fs.existsSync(this.path)) return false;
        this.fs.appendFileSync(this.path, data);
      } else {
        const exists = await this.fs.promises.lstat(this.path).then(
          () => true,
          () => false,
        );
        if (!exists) return false;
        if (this.fs.promises.appendFile) {
          await this.fs.promises.appendFile(this.path, data);
        } else {
          const before = await this.fs.promises.readFile(this.path, 'utf8').catch(() => '');
          await this.fs.promises.writeFile(this.path, before + data);
        }
      }
    } catch (error) {
      const failure = toForgeError(error);
      const cut = await this.cutBack();
      throw new ForgeError(failure.code, `Could not journal the change (${failure.message}); ${cut ? 'the journal was cut back to its last whole record' : 'the journal will be rewritten whole on the next change'}. Nothing acknowledged before this call was lost.`, {
        cause: error,
        data: { ...failure.data, path: this.path },
        ...(failure.hint ? { hint: failure.hint } : {}),
      });
    }
    if (this.size !== undefined) this.size += byteLength(data);
    // A record is acknowledged once it would survive a closed tab (lightning-fs buffers its tree).
    await flushWrites(this.fs);
    return true;
  }

  /** After a failed append: truncate to the last whole record. false when that is not possible. */
  private async cutBack(): Promise<boolean> {
    if (this.size === undefined) return false;
    try {
      if (this.fs.truncateSync) this.fs.truncateSync(this.path, this.size);
      else if (this.fs.promises.truncate) await this.fs.promises.truncate(this.path, this.size);
      else return false;
      return true;
    } catch {
      return false;
    }
  }
}

/** A journal that keeps nothing (views that need no crash safety, e.g. scratch views in tests). */
export class NullJournal implements Journal {
  async load(): Promise<null> {
    return null;
  }
  async rewrite(): Promise<void> {}
  async append(): Promise<boolean> {
    return true;
  }
  async appendState(): Promise<boolean> {
    return true;
  }
  async appendRecord(): Promise<boolean> {
    return true;
  }
  async appendRecords(): Promise<boolean> {
    return true;
  }
  async clear(): Promise<void> {}
}

/** A tool call's line: `{"c": [changes], "state": record}`, either part left out when absent. */
function recordLine(record: JournalRecord): string {
  const line: { c?: readonly JournalEntry[]; state?: unknown } = {};
  if (record.changes && record.changes.length > 0) line.c = record.changes;
  if ('state' in record) line.state = record.state;
  return JSON.stringify(line);
}

/**
 * One journal line as a record, or null when it is not one: not JSON, or JSON of another shape
 * (a line cut short can still parse, as `1` or `{"path":"a"}` do). Three shapes are written:
 * `{"c": [changes], "state"?}` (a tool call), `{"state"}` and a bare change (older journals).
 */
function parseRecord(line: string): { changes: JournalEntry[]; hasState: boolean; state?: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  const hasState = 'state' in record;
  if ('c' in record) {
    const changes = record.c;
    if (!Array.isArray(changes) || !changes.every(isEntry)) return null;
    return { changes, hasState, state: record.state };
  }
  if (hasState) return { changes: [], hasState, state: record.state };
  return isEntry(record) ? { changes: [record], hasState: false } : null;
}

const FILE_MODES: readonly FileMode[] = ['100644', '100755', '120000'];

function isEntry(value: unknown): value is JournalEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  if (typeof entry.path !== 'string' || entry.path === '') return false;
  if ('deleted' in entry) return entry.deleted === true;
  if ('reverted' in entry) return entry.reverted === true;
  return typeof entry.oid === 'string' && /^[0-9a-f]{40}$/.test(entry.oid) && FILE_MODES.includes(entry.mode as FileMode);
}

export function applyEntry(content: JournalContent, entry: JournalEntry): void {
  if ('deleted' in entry) content.changes.set(entry.path, null);
  else if ('reverted' in entry) content.changes.delete(entry.path);
  else content.changes.set(entry.path, { oid: entry.oid, mode: entry.mode });
}

function corruptHeader(path: string, cause?: unknown): ForgeError {
  const session = path.split('/').pop()!.replace(/\.jsonl(\..*)?$/, '');
  return new ForgeError('JOURNAL_CORRUPT', `The pending-changes journal ${path} does not start with a readable header line.`, {
    data: { path },
    hint: `"forge session discard ${session}" drops the journal (its blobs stay in refs/forge/pending/${session} until then).`,
    ...(cause === undefined ? {} : { cause }),
  });
}

const encoder = new TextEncoder();
function byteLength(text: string): number {
  return encoder.encode(text).length;
}
