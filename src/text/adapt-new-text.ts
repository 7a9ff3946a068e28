/**
 * Writes the authored new text in the file's own whitespace after a recovered match, using what
 * the match learned (which given old line stood for which file line):
 *
 * - a new line equal to a line of the old text (whitespace at its end aside) is an unchanged line:
 *   it is written exactly as the file has it (its indentation, its trailing whitespace);
 * - any other line is re-indented by the measured shift: an indentation the old text used is
 *   replaced by the file's; a deeper one keeps its extra part, translated into the file's unit
 *   (tabs or spaces); a shallower one is moved by the same number of columns (clamped at 0);
 * - when the old text carried whitespace at line ends that the file does not have, the new lines
 *   lose theirs too;
 * - the lines the match left out (blank boundary lines, a final newline, an unchanged first/last
 *   line) are left out of the new text as well.
 *
 * Blank lines are written as given: indenting them would only add trailing whitespace.
 */
import { dropBlank, joinLines, parseLines, type FuzzyAdjustment, type LinePair } from './fuzzy-match';
import { indentColumns, renderColumns, trailingWhitespace, translateUnit, unitOf, type IndentUnit } from './indent-units';
import { isBlank } from './lines';
import { leadingWhitespace } from './reindent';

export interface AdaptedText {
  text: string;
  /** Lines written less indented than the shift allows, placed at column 0; the caller mentions them. */
  lessIndentedLines: number;
}

/** Applies to the authored newText the same trimming and whitespace adjustment that made the old text match. */
export function adaptNewText(newText: string, fuzzy: FuzzyAdjustment): AdaptedText {
  let parsed = parseLines(newText);
  parsed = dropBlank(parsed, fuzzy.dropLeadingBlank, fuzzy.dropTrailingBlank);
  if (fuzzy.dropFinalNewline) parsed = { ...parsed, endsWithNewline: false };
  if (fuzzy.dropFirstLine) parsed = { ...parsed, lines: parsed.lines.slice(1) };
  if (fuzzy.dropLastLine) parsed = { lines: parsed.lines.slice(0, -1), endsWithNewline: true };

  const shift = new IndentShift(fuzzy);
  const unchanged = consistentMap(fuzzy.pairs.map((p) => [p.given, p.file]));
  // The same, whatever whitespace the new text repeats a line with at its end.
  const unchangedButEnd = consistentMap(fuzzy.pairs.map((p) => [stripEnd(p.given), p.file]));
  const stripEnds = addedTrailingWhitespace(fuzzy.pairs);
  let lessIndentedLines = 0;
  const lines = parsed.lines.map((line, i) => {
    if ((fuzzy.keepFirstLine && i === 0) || isBlank(line)) return line;
    const same = unchanged.get(line) ?? unchangedButEnd.get(stripEnd(line));
    if (same !== undefined) return same;
    const ws = leadingWhitespace(line);
    let body = line.slice(ws.length);
    if (stripEnds) body = body.slice(0, body.length - trailingWhitespace(body).length);
    const moved = shift.apply(ws);
    if (moved.clamped) lessIndentedLines++;
    return moved.ws + body;
  });
  return { text: joinLines({ ...parsed, lines }), lessIndentedLines };
}

function stripEnd(line: string): string {
  return line.slice(0, line.length - trailingWhitespace(line).length);
}

/** Keys that always map to the same value; a key seen with two values is left out. */
function consistentMap(entries: [string, string][]): Map<string, string> {
  const map = new Map<string, string>();
  const conflicting = new Set<string>();
  for (const [k, v] of entries) {
    if (map.has(k) && map.get(k) !== v) conflicting.add(k);
    else map.set(k, v);
  }
  for (const k of conflicting) map.delete(k);
  return map;
}

/** The old text had whitespace at line ends where the file has none (and never the other way round). */
function addedTrailingWhitespace(pairs: LinePair[]): boolean {
  let added = false;
  for (const { given, file } of pairs) {
    const g = trailingWhitespace(given).length;
    const f = trailingWhitespace(file).length;
    if (f > g) return false;
    if (g > f) added = true;
  }
  return added;
}

/** The indentation mapping a match measured, applied to one line's indentation. */
class IndentShift {
  private readonly known: Map<string, string>;
  private readonly keys: string[];
  private readonly givenUnit: IndentUnit;
  private readonly fileUnit: IndentUnit;
  private readonly tabWidth: number;
  private readonly delta: number;

  constructor(fuzzy: FuzzyAdjustment) {
    const pairs = fuzzy.pairs.map((p) => [leadingWhitespace(p.given), leadingWhitespace(p.file)] as [string, string]);
    this.known = consistentMap(pairs);
    this.keys = [...this.known.keys()].sort((a, b) => b.length - a.length);
    this.givenUnit = unitOf(this.known.keys());
    this.fileUnit = unitOf(this.known.values());
    this.tabWidth = fuzzy.tabWidth ?? measuredTabWidth(pairs) ?? 4;
    this.delta = indentColumns(fuzzy.indentTo, this.tabWidth) - indentColumns(fuzzy.indentFrom, this.tabWidth);
  }

  apply(ws: string): { ws: string; clamped: boolean } {
    const exact = this.known.get(ws);
    if (exact !== undefined) return { ws: exact, clamped: false };
    const key = this.keys.find((k) => ws.startsWith(k));
    if (key !== undefined) return { ws: this.known.get(key)! + translateUnit(ws.slice(key.length), this.givenUnit, this.fileUnit, this.tabWidth), clamped: false };
    const columns = indentColumns(ws, this.tabWidth) + this.delta;
    const unit = this.fileUnit === 'tab' || this.fileUnit === 'space' ? this.fileUnit : unitOf([ws]);
    return { ws: renderColumns(columns, unit, this.tabWidth), clamped: columns < 0 };
  }
}

/** Spaces per tab when the old text wrote with spaces what the file indents with tabs (or the reverse). */
function measuredTabWidth(pairs: [string, string][]): number | null {
  for (const [given, file] of pairs) {
    const [spaces, tabs] = /^ +$/.test(given) && /^\t+$/.test(file) ? [given.length, file.length] : /^\t+$/.test(given) && /^ +$/.test(file) ? [file.length, given.length] : [0, 0];
    if (tabs > 0 && spaces % tabs === 0) return spaces / tabs;
  }
  return null;
}
