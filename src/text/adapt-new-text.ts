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
import { indentColumns, renderColumns, TAB_WIDTHS, trailingWhitespace, translateUnit, unitOf, type IndentUnit } from './indent-units';
import { isBlank } from './lines';
import { leadingWhitespace } from './reindent';

export interface AdaptedText {
  text: string;
  /** Lines written less indented than the shift allows, placed at column 0; the caller mentions them. */
  lessIndentedLines: number;
  /**
   * The file's tabs were written as spaces and shifted, and a tab of 4 and one of 8 both fit
   * (12 spaces for one tab: 8 shifted by 4, or 4 shifted by 8) but indent the new lines
   * differently: the caller refuses rather than guess. The first new line they differ on.
   */
  ambiguousTabWidth?: { newLine: string };
}

/** Applies to the authored newText the same trimming and whitespace adjustment that made the old text match. */
export function adaptNewText(newText: string, fuzzy: FuzzyAdjustment): AdaptedText {
  let parsed = parseLines(newText);
  parsed = dropBlank(parsed, fuzzy.dropLeadingBlank, fuzzy.dropTrailingBlank);
  if (fuzzy.dropFinalNewline) parsed = { ...parsed, endsWithNewline: false };
  if (fuzzy.dropFirstLine) parsed = { ...parsed, lines: parsed.lines.slice(1) };
  if (fuzzy.dropLastLine) parsed = { lines: parsed.lines.slice(0, -1), endsWithNewline: true };

  const width = tabWidthOfText(fuzzy, parsed.lines);
  const shift = new IndentShift(fuzzy, width === 'ambiguous' ? 4 : width);
  const unchanged = consistentMap(fuzzy.pairs.map((p) => [p.given, p.file]));
  // The same, whatever whitespace the new text repeats a line with at its end.
  const unchangedButEnd = consistentMap(fuzzy.pairs.map((p) => [stripEnd(p.given), p.file]));
  const repeated = repeatedInOrder(fuzzy.pairs, parsed.lines);
  const stripEnds = addedTrailingWhitespace(fuzzy.pairs);
  let lessIndentedLines = 0;
  const lines = parsed.lines.map((line, i) => {
    if ((fuzzy.keepFirstLine && i === 0) || isBlank(line)) return line;
    const same = repeated.get(stripEnd(line))?.shift() ?? unchanged.get(line) ?? unchangedButEnd.get(stripEnd(line));
    if (same !== undefined) return same;
    const ws = leadingWhitespace(line);
    let body = line.slice(ws.length);
    if (stripEnds) body = body.slice(0, body.length - trailingWhitespace(body).length);
    const moved = shift.apply(ws);
    if (moved.clamped) lessIndentedLines++;
    return moved.ws + body;
  });
  const text = joinLines({ ...parsed, lines });
  if (width !== 'ambiguous') return { text, lessIndentedLines };
  const other = new IndentShift(fuzzy, 8);
  const differing = parsed.lines.find((line, i) => !isBlank(line) && lines[i] !== line && shift.apply(leadingWhitespace(line)).ws !== other.apply(leadingWhitespace(line)).ws);
  return differing === undefined ? { text, lessIndentedLines } : { text, lessIndentedLines, ambiguousTabWidth: { newLine: differing } };
}

/** Why an ambiguous tab width applied nothing, for the model (`old`/`new` name the fields). */
export function ambiguousTabWidthMessage(a: { newLine: string }, old: string, neu: string): string {
  return (
    `${old} did not match exactly: it writes the file's tab indentation as spaces and is also shifted, so a tab of 4 and a tab ` +
    `of 8 columns both fit it, and they would indent ${JSON.stringify(a.newLine)} of ${neu} differently: nothing was changed. ` +
    `Write the indentation of ${old} and ${neu} with tabs, as read_file shows the file.`
  );
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

/**
 * A line the old text repeats, that the file writes differently each time (one with whitespace at
 * its end, one without): when the new text repeats it as often, its copies are the file's lines in order.
 */
function repeatedInOrder(pairs: LinePair[], newLines: string[]): Map<string, string[]> {
  const files = new Map<string, string[]>();
  for (const p of pairs) files.set(stripEnd(p.given), [...(files.get(stripEnd(p.given)) ?? []), p.file]);
  const out = new Map<string, string[]>();
  for (const [key, lines] of files) {
    if (new Set(lines).size > 1 && newLines.filter((l) => stripEnd(l) === key).length === lines.length) out.set(key, lines);
  }
  return out;
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
  /** The shift as text, when one indentation ends with the other: a prefix the old text added (removed from new lines) or lacks (added). */
  private readonly removed: string | null;
  private readonly added: string | null;

  constructor(fuzzy: FuzzyAdjustment, tabWidth: number | null) {
    const pairs = fuzzy.pairs.map((p) => [leadingWhitespace(p.given), leadingWhitespace(p.file)] as [string, string]);
    this.known = consistentMap(pairs);
    this.keys = [...this.known.keys()].sort((a, b) => b.length - a.length);
    this.givenUnit = unitOf(this.known.keys());
    this.fileUnit = unitOf(this.known.values());
    this.tabWidth = tabWidth ?? fuzzy.tabWidth ?? measuredTabWidth(pairs) ?? 4;
    this.delta = indentColumns(fuzzy.indentTo, this.tabWidth) - indentColumns(fuzzy.indentFrom, this.tabWidth);
    const [from, to] = [fuzzy.indentFrom, fuzzy.indentTo];
    this.removed = from.length > to.length && from.endsWith(to) ? from.slice(0, from.length - to.length) : null;
    this.added = to.length > from.length && to.endsWith(from) ? to.slice(0, to.length - from.length) : null;
  }

  apply(ws: string): { ws: string; clamped: boolean } {
    const exact = this.known.get(ws);
    if (exact !== undefined) return { ws: exact, clamped: false };
    const key = this.keys.find((k) => ws.startsWith(k));
    if (key !== undefined) {
      const rest = ws.slice(key.length);
      // Old text with no indentation says nothing of its unit: the new text's own is the one to translate.
      const from = this.givenUnit === 'none' ? unitOf([rest]) : this.givenUnit;
      return { ws: this.known.get(key)! + translateUnit(rest, from, this.fileUnit, this.tabWidth), clamped: false };
    }
    // Shallower than every old line: undo the same prefix (`  ` before tabs is not absorbed by a tab stop).
    if (this.removed !== null && ws.startsWith(this.removed)) return { ws: ws.slice(this.removed.length), clamped: false };
    if (this.added !== null && unitOf([ws]) !== 'mixed') return { ws: this.added + ws, clamped: false };
    const columns = indentColumns(ws, this.tabWidth) + this.delta;
    const unit = this.fileUnit === 'tab' || this.fileUnit === 'space' ? this.fileUnit : unitOf([ws]);
    return { ws: renderColumns(columns, unit, this.tabWidth), clamped: columns < 0 };
  }
}

/**
 * Spaces per tab when the old text wrote with spaces what the file indents with tabs (or the
 * reverse), when that is a usual width (2, 4 or 8): 12 spaces for 2 tabs is a shifted old text, not
 * a tab of 6.
 */
function measuredTabWidth(pairs: [string, string][]): number | null {
  for (const [given, file] of pairs) {
    const [spaces, tabs] = /^ +$/.test(given) && /^\t+$/.test(file) ? [given.length, file.length] : /^\t+$/.test(given) && /^ +$/.test(file) ? [file.length, given.length] : [0, 0];
    if (tabs > 0 && spaces % tabs === 0 && TAB_WIDTHS.includes(spaces / tabs)) return spaces / tabs;
  }
  return null;
}

/**
 * The tab width to re-indent with when the old text wrote the file's tabs as spaces. A reading
 * under which nothing moved (spaces = tabs x width) is the plain one and stands, unless the new
 * text rules it out. Otherwise every usual width under which the matched lines differ from the
 * file's by one constant is a reading (one depth of 12 spaces for one tab: a tab of 8 shifted by
 * 4, a tab of 4 shifted by 8, ...), and the new text's own steps (how far its lines go past the old
 * text's indentation) must be whole tabs of it. Tabs of 4 and 8 are what tabs are written as; when
 * both are still possible the answer cannot be known, and 'ambiguous' makes the caller refuse.
 * Null: nothing to decide (not tabs written as spaces), the matcher's width stands.
 */
function tabWidthOfText(fuzzy: FuzzyAdjustment, newLines: string[]): number | 'ambiguous' | null {
  const pairs = fuzzy.pairs.map((p) => [leadingWhitespace(p.given), leadingWhitespace(p.file)] as [string, string]);
  if (unitOf(pairs.map(([given]) => given)) !== 'space' || unitOf(pairs.map(([, file]) => file)) !== 'tab') return null;
  const copies = new Set(fuzzy.pairs.map((p) => stripEnd(p.given)));
  const steps = newLines
    .filter((l) => !isBlank(l) && !copies.has(stripEnd(l)) && /^ *$/.test(leadingWhitespace(l)))
    .map((l) => Math.abs(leadingWhitespace(l).length - fuzzy.indentFrom.length))
    .filter((d) => d > 0);
  const readings = new Map<number, number>();
  for (const width of TAB_WIDTHS) {
    const shifts = new Set(pairs.map(([given, file]) => indentColumns(file, width) - indentColumns(given, width)));
    if (shifts.size === 1 && steps.every((d) => d % width === 0)) readings.set(width, [...shifts][0]!);
  }
  const plain = [...readings].find(([, shift]) => shift === 0);
  if (plain !== undefined) return plain[0] === (fuzzy.tabWidth ?? plain[0]) ? null : plain[0];
  if (readings.size === 0) return null;
  if (readings.has(4) && readings.has(8)) return steps.length === 0 ? null : 'ambiguous';
  return readings.has(4) ? 4 : readings.has(8) ? 8 : [...readings.keys()][0]!;
}
