/**
 * The pending set's journal: an append-only JSON-lines file under the gitdir
 * (`forge/pending/<key>.jsonl`), so a crash mid-turn loses no edit. Blobs are in the object
 * store before their line is appended; a torn last line (a crash mid-append) is ignored.
 *
 * Line 1 is a header {v, base, owner}; then one line per change, and the session's state
 * records (opaque here: the session layer writes deltas of its in-turn state and folds them).
 * `owner` is the id of the view that last rewrote the file: a view clears the journal after a
 * commit only if it still owns it, so a second writer's journal is not removed by the first.
 */
import { ForgeError, toForgeError } from '../errors';
import { dirname, errnoCode, hasSyncApi, joinPath, type GitFs } from '../git';
import type { FileMode } from './types';

export type JournalEntry = { path: string; oid: string; mode: FileMode } | { path: string; deleted: true } | { path: string; reverted: true };

export interface JournalContent {
  base: string;
  owner: string;
  changes: Map<string, { oid: string; mode: FileMode } | null>;
  /** State records journaled with the pending set, in order (the session's in-turn state). */
  states: unknown[];
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
  /** Removes the file if `owner` still owns it; with no owner, unconditionally. */
  clear(owner?: string): Promise<void>;
}

interface Header {
  v: 1;
  base: string;
  owner: string;
}

export class FsJournal implements Journal {
  private readonly path: string;

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
    let text: string;
    try {
      text = await this.fs.promises.readFile(path, 'utf8');
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return null;
      throw toForgeError(error);
    }
    const lines = text.split('\n');
    let header: Header;
    try {
      header = JSON.parse(lines[0]!) as Header;
    } catch (error) {
      throw new ForgeError('JOURNAL_CORRUPT', `The pending-changes journal ${this.path} has an unreadable header.`, { data: { path: this.path }, cause: error });
    }
    if (typeof header !== 'object' || header === null || header.v !== 1 || typeof header.base !== 'string' || typeof header.owner !== 'string') {
      throw new ForgeError('JOURNAL_CORRUPT', `The pending-changes journal ${this.path} does not start with its header line.`, {
        data: { path: this.path },
        hint: 'Remove the file to drop the pending changes it holds.',
      });
    }
    const content: JournalContent = { base: header.base, owner: header.owner, changes: new Map(), states: [] };
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      if (line === '') continue;
      let entry: JournalEntry | { state: unknown };
      try {
        entry = JSON.parse(line) as JournalEntry | { state: unknown };
      } catch (error) {
        // Only the last line can be torn by a crash; anything earlier means real corruption.
        if (lines.slice(i + 1).every((l) => l === '')) break;
        throw new ForgeError('JOURNAL_CORRUPT', `The pending-changes journal ${this.path} has an unreadable line ${i + 1}.`, { data: { path: this.path }, cause: error });
      }
      if ('state' in entry) content.states.push(entry.state);
      else if ('deleted' in entry) content.changes.set(entry.path, null);
      else if ('reverted' in entry) content.changes.delete(entry.path);
      else content.changes.set(entry.path, { oid: entry.oid, mode: entry.mode });
    }
    return content;
  }

  async rewrite(content: JournalContent): Promise<void> {
    const lines = [JSON.stringify({ v: 1, base: content.base, owner: content.owner } satisfies Header)];
    for (const [path, change] of content.changes) {
      lines.push(JSON.stringify(change === null ? { path, deleted: true } : { path, oid: change.oid, mode: change.mode }));
    }
    for (const state of content.states) lines.push(JSON.stringify({ state }));
    const tmp = `${this.path}.${content.owner}.tmp`;
    await this.fs.promises.mkdir(dirname(this.path), { recursive: true });
    await this.fs.promises.writeFile(tmp, lines.join('\n') + '\n');
    await this.fs.promises.rename(tmp, this.path);
  }

  append(entry: JournalEntry): Promise<boolean> {
    return this.appendLine(JSON.stringify(entry));
  }

  appendState(state: unknown): Promise<boolean> {
    return this.appendLine(JSON.stringify({ state }));
  }

  async clear(owner?: string): Promise<void> {
    const unlink = (path: string) =>
      this.fs.promises.unlink(path).catch((error: unknown) => {
        if (errnoCode(error) !== 'ENOENT') throw toForgeError(error);
      });
    if (owner === undefined) return unlink(this.path);
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
    const current = await this.loadFrom(taken).catch(() => null);
    if (current !== null && current.owner !== owner) {
      // Another writer's journal: put it back, unless an even newer one has appeared meanwhile.
      const newer = await this.fs.promises.lstat(this.path).then(
        () => true,
        () => false,
      );
      if (!newer) return this.fs.promises.rename(taken, this.path);
    }
    await unlink(taken);
  }

  private async appendLine(line: string): Promise<boolean> {
    // Appending to a missing file would create a journal without its header (and without the
    // changes before this one): let the caller rewrite it instead.
    if (hasSyncApi(this.fs)) {
      // Two plain syscalls per line: a tool call appends a line or two, a big turn thousands.
      if (!this.fs.existsSync(this.path)) return false;
      this.fs.appendFileSync(this.path, line + '\n');
      return true;
    }
    const exists = await this.fs.promises.lstat(this.path).then(
      () => true,
      () => false,
    );
    if (!exists) return false;
    if (this.fs.promises.appendFile) {
      await this.fs.promises.appendFile(this.path, line + '\n');
    } else {
      const before = await this.fs.promises.readFile(this.path, 'utf8').catch(() => '');
      await this.fs.promises.writeFile(this.path, before + line + '\n');
    }
    return true;
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
  async clear(): Promise<void> {}
}
