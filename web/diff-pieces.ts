/**
 * A file's unified diff as the page draws it: the real hunks (a 5,000-line new file is one
 * `@@ -0,0 +1,5000 @@`, not fifty made-up 100-line hunks), drawn in pieces of at most `maxLines`
 * lines (diff2html's cost grows with the lines it draws at once), with every run of more than
 * `foldRun` lines of one kind folded but for its first and last `keep` lines.
 *
 * Each piece is a patch diff2html can draw on its own. The first piece of a hunk carries the
 * hunk's own `@@` line; a piece that continues a hunk (after a cut or a fold) carries an `@@`
 * line with the right start numbers only (diff2html numbers lines from it) and says so with
 * `continues`: the page hides that line. Pure: text in, pieces out.
 */
export interface LinesPiece {
  kind: 'lines';
  /** File headers, then the piece's hunks. */
  patch: string;
  /** Its first hunk line is a continuation, not one of the diff's hunks. */
  continues: boolean;
  /** Diff lines in the piece (not counting "\ No newline" markers). */
  lines: number;
}

export interface FoldPiece {
  kind: 'fold';
  /** Diff lines folded. */
  lines: number;
  /** What an unfold draws. */
  pieces: LinesPiece[];
}

export type DiffPiece = LinesPiece | FoldPiece;

export interface PieceOptions {
  maxLines: number;
  /** A run of more lines than this of one kind (added, removed or context) is folded. */
  foldRun: number;
  /** Lines kept visible at each end of a folded run. */
  keep: number;
}

interface Hunk {
  header: string;
  oldStart: number;
  newStart: number;
  body: string[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** The hunks of a unified diff (the file headers before them returned apart). */
export function parseHunks(patch: string): { header: string; hunks: Hunk[] } | null {
  const lines = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  const first = lines.findIndex((l) => l.startsWith('@@'));
  if (first === -1) return null;
  const hunks: Hunk[] = [];
  for (let i = first; i < lines.length; i++) {
    const line = lines[i]!;
    const m = HUNK.exec(line);
    if (m) {
      // An empty range names the line before it.
      hunks.push({ header: line, oldStart: Number(m[1]) + (m[2] === '0' ? 1 : 0), newStart: Number(m[3]) + (m[4] === '0' ? 1 : 0), body: [] });
    } else hunks[hunks.length - 1]!.body.push(line);
  }
  return { header: lines.slice(0, first).join('\n') + (first > 0 ? '\n' : ''), hunks };
}

const kindOf = (line: string) => (line[0] === '+' || line[0] === '-' ? line[0] : ' ');

/** [start, end) ranges of a hunk's body lines to fold: the middle of every run longer than foldRun. */
export function foldRanges(body: readonly string[], foldRun: number, keep: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let i = 0;
  while (i < body.length) {
    if (body[i]!.startsWith('\\')) {
      i++;
      continue;
    }
    const kind = kindOf(body[i]!);
    // The run's lines (a "\ No newline" marker belongs to the line before it).
    const starts: number[] = [];
    let j = i;
    while (j < body.length && (body[j]!.startsWith('\\') || kindOf(body[j]!) === kind)) {
      if (!body[j]!.startsWith('\\')) starts.push(j);
      j++;
    }
    if (starts.length > foldRun && starts.length > 2 * keep) out.push([starts[keep]!, starts[starts.length - keep]!]);
    i = j;
  }
  return out;
}

export function diffPieces(patch: string, options: PieceOptions): DiffPiece[] {
  const parsed = parseHunks(patch);
  if (!parsed) return [{ kind: 'lines', patch, continues: false, lines: 0 }];
  const { header, hunks } = parsed;
  const out: DiffPiece[] = [];
  // The piece being filled: its text lines and counts.
  let body: string[] = [];
  let count = 0;
  let continues = false;
  // A continuation's own @@ line: where it starts, and its counts (known when the piece closes).
  let cont: { oldAt: number; newAt: number; old: number; new: number } | undefined;
  const finishContinuation = () => {
    if (cont) body[0] = `@@ -${cont.old === 0 ? cont.oldAt - 1 : cont.oldAt},${cont.old} +${cont.new === 0 ? cont.newAt - 1 : cont.newAt},${cont.new} @@`;
    cont = undefined;
  };
  const close = (into: DiffPiece[]) => {
    finishContinuation();
    if (body.length) into.push({ kind: 'lines', patch: header + body.join('\n') + '\n', continues, lines: count });
    body = [];
    count = 0;
  };
  const startLine = (oldAt: number, newAt: number) => {
    cont = { oldAt, newAt, old: 0, new: 0 };
    return '@@';
  };
  for (const hunk of hunks) {
    const folds = foldRanges(hunk.body, options.foldRun, options.keep);
    let oldAt = hunk.oldStart;
    let newAt = hunk.newStart;
    let into = out;
    let fold: FoldPiece | undefined;
    if (count >= options.maxLines) close(out);
    if (body.length === 0) continues = false;
    finishContinuation(); // the continued hunk ended in this piece: its counts are final
    body.push(hunk.header);
    for (let i = 0; i < hunk.body.length; i++) {
      const line = hunk.body[i]!;
      const foldStart = folds.find(([s]) => s === i);
      const foldEnd = fold !== undefined && folds.some(([, e]) => e === i);
      if (foldStart || foldEnd) {
        close(into);
        if (foldStart) {
          fold = { kind: 'fold', lines: 0, pieces: [] };
          out.push(fold);
          into = fold.pieces;
        } else {
          fold = undefined;
          into = out;
        }
        continues = true;
        body.push(startLine(oldAt, newAt));
      } else if (!line.startsWith('\\') && count >= options.maxLines) {
        close(into);
        continues = true;
        body.push(startLine(oldAt, newAt));
      }
      body.push(line);
      if (line.startsWith('\\')) continue;
      count++;
      if (fold) fold.lines++;
      if (line[0] !== '+') {
        oldAt++;
        if (cont) cont.old++;
      }
      if (line[0] !== '-') {
        newAt++;
        if (cont) cont.new++;
      }
    }
    if (fold) close(into);
  }
  close(out);
  return out;
}
