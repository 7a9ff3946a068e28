/**
 * Line attribution through history, as git's blame.c does it (pass_blame, pass_blame_to_parent,
 * blame_chunk): every line of a file starts with the commit that holds it; a commit passes to a
 * parent the lines that parent's version already had (the whole file to the first parent holding
 * the same blob; otherwise parents in order, each taking the lines its diff leaves unchanged),
 * and keeps the rest. Pure: the history is read through `BlameHistory`.
 */
import { LineClassifier } from '../branches/xdiff';
import { blameHunks, blameLines, blameLinesNear, type BlameLines } from './blame-diff';

export interface BlameHistory {
  /** Parents in order, and the committer time that orders the walk (newest first, as git's). */
  commit(oid: string): Promise<{ parents: readonly string[]; time: number }>;
  /** The blob at `path` in `commit`, or null where there is no file there. */
  fileAt(commit: string, path: string): Promise<string | null>;
  /** For a path `commit` has and `parent` lacks: the parent's path it was renamed from, or null. */
  renamedFrom(parent: string, commit: string, path: string): Promise<string | null>;
  blob(oid: string): Promise<Uint8Array>;
  /**
   * Optional: true only when `path` surely has the same blob in `commit` and its first parent
   * (a changed-path filter said so), so the walk passes every line on without reading trees.
   */
  unchangedFromFirstParent?(commit: string, path: string): Promise<boolean>;
}

/** One line of the blamed file: the commit that last changed it, and where it stood there. */
export interface BlamedLine {
  commit: string;
  path: string;
  /** 0-based line number in that commit's version of the file. */
  sourceLine: number;
}

/** A commit and path that lines were blamed on, with the parent version git calls "previous". */
export interface BlameOrigin {
  commit: string;
  path: string;
  previous?: { commit: string; path: string };
}

export interface BlameResult {
  /** The blamed file's bytes and line starts (the last start is the data's length). */
  bytes: Uint8Array;
  starts: number[];
  /** 0-based final line number of `lines[0]`: 0 for the whole file, the range's start with `-L`. */
  first: number;
  /** The blamed lines, from final line `first` on: the whole file, or the range asked for. */
  lines: BlamedLine[];
  /** Every commit + path lines were blamed on, keyed by `originKey`. */
  origins: Map<string, BlameOrigin>;
}

export function originKey(commit: string, path: string): string {
  return `${commit}\0${path}`;
}

interface Suspect {
  commit: string;
  path: string;
  blob: string;
  time: number;
  /** Final line numbers, and their line numbers in this suspect's version (same order). */
  finals: number[];
  sources: number[];
}

const LINE_CACHE = 16;

export class Blamer {
  private readonly classifier = new LineClassifier();
  private readonly lineCache = new Map<string, BlameLines>();

  constructor(private readonly history: BlameHistory) {}

  /**
   * Blames the whole file, or only the final lines [range.start, range.end) as `git blame -L`
   * does: only those lines are followed, so the walk ends once their origins are found (for one
   * line, one commit per step down its history). A range past the file's end is cut to it.
   */
  async blame(commit: string, path: string, range?: { start: number; end: number }): Promise<BlameResult | null> {
    const blob = await this.history.fileAt(commit, path);
    if (blob === null) return null;
    const target = await this.linesOf(blob);
    const total = target.starts.length - 1;
    const from = Math.max(0, Math.min(range?.start ?? 0, total));
    const to = Math.max(from, Math.min(range?.end ?? total, total));
    const count = to - from;
    const lines: BlamedLine[] = new Array(count);
    const origins = new Map<string, BlameOrigin>();
    const pending = new Map<string, Suspect>();
    const queue: Suspect[] = [];
    const time = (await this.history.commit(commit)).time;
    const first: Suspect = { commit, path, blob, time, finals: [], sources: [] };
    for (let i = from; i < to; i++) {
      first.finals.push(i);
      first.sources.push(i);
    }
    const enqueue = (s: Suspect) => {
      pending.set(originKey(s.commit, s.path), s);
      queue.push(s);
    };
    if (count > 0) enqueue(first);
    while (queue.length > 0) {
      // Newest commit first, as git's queue: a commit is reached from all its children before its turn.
      let best = 0;
      for (let i = 1; i < queue.length; i++) if (queue[i]!.time > queue[best]!.time) best = i;
      const suspect = queue.splice(best, 1)[0]!;
      pending.delete(originKey(suspect.commit, suspect.path));
      const kept = await this.passToParents(suspect, pending, enqueue, origins);
      if (kept.finals.length === 0) continue;
      const key = originKey(suspect.commit, suspect.path);
      if (!origins.has(key)) origins.set(key, { commit: suspect.commit, path: suspect.path });
      for (let i = 0; i < kept.finals.length; i++) lines[kept.finals[i]! - from] = { commit: suspect.commit, path: suspect.path, sourceLine: kept.sources[i]! };
    }
    return { bytes: target.bytes, starts: target.starts, first: from, lines, origins };
  }

  /** Hands the suspect's lines to its parents; returns the lines it keeps. */
  private async passToParents(
    suspect: Suspect,
    pending: Map<string, Suspect>,
    enqueue: (s: Suspect) => void,
    origins: Map<string, BlameOrigin>,
  ): Promise<{ finals: number[]; sources: number[] }> {
    const { parents } = await this.history.commit(suspect.commit);
    if (parents.length > 0 && (await this.history.unchangedFromFirstParent?.(suspect.commit, suspect.path))) {
      // What the loop below would find at the first parent (the same blob), without its trees.
      await this.give(parents[0]!, suspect.path, suspect.blob, suspect.finals, suspect.sources, pending, enqueue);
      return { finals: [], sources: [] };
    }
    const candidates: Array<{ commit: string; path: string; blob: string }> = [];
    const seenCommits = new Set<string>();
    for (const parent of parents) {
      if (seenCommits.has(parent)) continue;
      seenCommits.add(parent);
      let path = suspect.path;
      let blob = await this.history.fileAt(parent, path);
      if (blob === null) {
        const renamed = await this.history.renamedFrom(parent, suspect.commit, path);
        if (renamed !== null) {
          path = renamed;
          blob = await this.history.fileAt(parent, path);
        }
      }
      if (blob === null) continue;
      if (blob === suspect.blob) {
        // The same content in a parent: every line is older than this commit.
        await this.give(parent, path, blob, suspect.finals, suspect.sources, pending, enqueue);
        return { finals: [], sources: [] };
      }
      // A later parent with the same content as an earlier one has nothing left to take.
      if (!candidates.some((c) => c.blob === blob)) candidates.push({ commit: parent, path, blob });
    }
    const key = originKey(suspect.commit, suspect.path);
    const firstCandidate = candidates[0];
    if (firstCandidate) origins.set(key, { commit: suspect.commit, path: suspect.path, previous: { commit: firstCandidate.commit, path: firstCandidate.path } });
    let finals = suspect.finals;
    let sources = suspect.sources;
    if (candidates.length === 0 || finals.length === 0) return { finals, sources };
    const target = await this.linesOf(suspect.blob);
    for (const candidate of candidates) {
      if (finals.length === 0) break;
      const parentLines = await this.linesOf(candidate.blob, target);
      const hunks = blameHunks(parentLines, target);
      const passFinals: number[] = [];
      const passSources: number[] = [];
      const keepFinals: number[] = [];
      const keepSources: number[] = [];
      // Walk the suspect's lines (in source order) against the hunks: a line outside every
      // hunk's new side is unchanged, at the parent line shifted by the hunks before it.
      const order = sources.map((_, i) => i).sort((a, b) => sources[a]! - sources[b]!);
      let h = 0;
      let shift = 0;
      for (const i of order) {
        const line = sources[i]!;
        while (h < hunks.length && hunks[h]!.i2 + hunks[h]!.chg2 <= line) {
          shift = hunks[h]!.i1 + hunks[h]!.chg1 - (hunks[h]!.i2 + hunks[h]!.chg2);
          h++;
        }
        if (h < hunks.length && line >= hunks[h]!.i2) {
          keepFinals.push(finals[i]!);
          keepSources.push(line);
        } else {
          passFinals.push(finals[i]!);
          passSources.push(line + shift);
        }
      }
      if (passFinals.length > 0) await this.give(candidate.commit, candidate.path, candidate.blob, passFinals, passSources, pending, enqueue);
      finals = keepFinals;
      sources = keepSources;
    }
    return { finals, sources };
  }

  private async give(commit: string, path: string, blob: string, finals: number[], sources: number[], pending: Map<string, Suspect>, enqueue: (s: Suspect) => void): Promise<void> {
    const existing = pending.get(originKey(commit, path));
    if (existing) {
      existing.finals.push(...finals);
      existing.sources.push(...sources);
      return;
    }
    const time = (await this.history.commit(commit)).time;
    enqueue({ commit, path, blob, time, finals: [...finals], sources: [...sources] });
  }

  /** A blob's lines, classified once; `near`: another version of the file, to classify only what differs. */
  private async linesOf(blob: string, near?: BlameLines): Promise<BlameLines> {
    const cached = this.lineCache.get(blob);
    if (cached) {
      this.lineCache.delete(blob);
      this.lineCache.set(blob, cached);
      return cached;
    }
    const bytes = await this.history.blob(blob);
    const lines = near ? blameLinesNear(bytes, near, this.classifier) : blameLines(bytes, this.classifier);
    this.lineCache.set(blob, lines);
    if (this.lineCache.size > LINE_CACHE) this.lineCache.delete(this.lineCache.keys().next().value!);
    return lines;
  }
}
