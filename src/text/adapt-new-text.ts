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
}

/** Applies to the authored newText the same trimming and whitespace adjustment that made the old text match. */
export function adaptNewText(newText: string, fuzzy: FuzzyAdjustment): AdaptedText {
  let parsed = parseLines(newText);
  parsed = dropBlank(parsed, fuzzy.dropLeadingBlank, fuzzy.dropTrailingBlank);
  if (fuzzy.dropFinalNewline) parsed = { ...parsed, endsWithNewline: false };
  if (fuzzy.dropFirstLine) parsed = { ...parsed, lines: parsed.lines.slice(1) };
  if (fuzzy.dropLastLine) parsed = { lines: parsed.lines.slice(0, -1), endsWithNewline: true };

  const shift = new IndentShift(fuzzy, tabWidthOfText(fuzzy, parsed.lines));
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
 * Tabs written as spaces, with the old text also shifted: matched at one depth, 8 spaces for one
 * tab is a tab of 8, or a tab of 4 and 4 columns of shift, and the matcher prefers no shift. The
 * new text tells them apart: a model writes one indentation step as one tab's worth of spaces, so
 * the greatest common divisor of the space indentations it wrote (old and new text) is its tab,
 * when that is a usual width under which every matched line differs from the file's by one
 * constant shift. Null: no better evidence than the matcher's.
 */
function tabWidthOfText(fuzzy: FuzzyAdjustment, newLines: string[]): number | null {
  const pairs = fuzzy.pairs.map((p) => [leadingWhitespace(p.given), leadingWhitespace(p.file)] as [string, string]);
  if (unitOf(pairs.map(([given]) => given)) !== 'space' || unitOf(pairs.map(([, file]) => file)) !== 'tab') return null;
  const widths = [...pairs.map(([given]) => given), ...newLines.filter((l) => !isBlank(l)).map(leadingWhitespace)].filter((ws) => /^ +$/.test(ws)).map((ws) => ws.length);
  // The matcher's width stands unless the text itself writes a step it cannot be (12 spaces with a tab of 8).
  const chosen = fuzzy.tabWidth ?? measuredTabWidth(pairs);
  if (chosen !== null && widths.every((w) => w % chosen === 0)) return null;
  const step = widths.reduce(gcd, 0);
  if (!TAB_WIDTHS.includes(step)) return null;
  const shifts = new Set(pairs.map(([given, file]) => indentColumns(file, step) - indentColumns(given, step)));
  return shifts.size === 1 ? step : null;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
