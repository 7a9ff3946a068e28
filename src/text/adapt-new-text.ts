/**
 * Writes the authored new text in the file's own whitespace after a recovered match, using what
 * the match learned (which given old line stood for which file line). Only lines matched to old
 * lines are normalized; a new line is written as the model wrote it except for a measured,
 * consistent change:
 *
 * - a line of the new text aligned with a line of the old text (a copy: same text, whitespace at
 *   its end aside; a blank line with a blank line, whatever their whitespace) is written exactly
 *   as the file has that line, blank lines included;
 * - any other line keeps its indentation unless the match measured a change: an indentation the
 *   old text used is replaced by the file's; a deeper one keeps its extra part, translated into
 *   the file's unit only when the match measured that the old text wrote the file's tabs as
 *   spaces (or the reverse); spaces after tabs are alignment and are kept; a shallower one is moved
 *   by the same number of columns (clamped at 0). With no change measured, it is written as given;
 * - a new line written like an old line whose whitespace at its end the old text left off (the
 *   file has it) may be a copy or a new line alike: refused (unclearCopy);
 * - whitespace at line ends is taken off new lines only when every copied line of the new text
 *   carries more of it than the file line it stands for (the model padded its whole text);
 * - the lines the match left out (blank boundary lines, a final newline, an unchanged first/last
 *   line) are left out of the new text as well.
 */
import { alignLines } from './align-lines';
import { dropBlank, joinLines, parseLines, type FuzzyAdjustment, type LinePair } from './fuzzy-match';
import { indentColumns, renderColumns, TAB_WIDTHS, trailingWhitespace, unitOf, type IndentUnit } from './indent-units';
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
  /** A new line repeats an old line the old text has twice, at places the file writes differently: the caller refuses. */
  unclearCopy?: { newLine: string };
  /** A new line with an aligned old line's spaces could be that alignment or whole tabs deeper (see writeLines): the caller refuses. */
  ambiguousAlignment?: { newLine: string };
}

/** Applies to the authored newText the same trimming and whitespace adjustment that made the old text match. */
export function adaptNewText(newText: string, fuzzy: FuzzyAdjustment): AdaptedText {
  // No new text is no lines (a deletion), not one empty line that could copy a blank one.
  if (newText === '') return { text: '', lessIndentedLines: 0 };
  let parsed = parseLines(newText);
  parsed = dropBlank(parsed, fuzzy.dropLeadingBlank, fuzzy.dropTrailingBlank);
  if (fuzzy.dropFinalNewline) parsed = { ...parsed, endsWithNewline: false };
  if (fuzzy.dropFirstLine) parsed = { ...parsed, lines: parsed.lines.slice(1) };
  if (fuzzy.dropLastLine) parsed = { lines: parsed.lines.slice(0, -1), endsWithNewline: true };

  const { copies, unclear } = copiedLines(fuzzy, parsed.lines);
  const width = tabWidthOfText(fuzzy, parsed.lines, copies);
  const padded = paddedEverywhere(fuzzy, parsed.lines, copies);
  const written = writeLines(fuzzy, parsed.lines, copies, padded, new IndentShift(fuzzy, width === 'ambiguous' ? 4 : width));
  const { lessIndentedLines } = written;
  const text = joinLines({ ...parsed, lines: written.lines });
  // A new line written like an old line whose whitespace at its end the file has and the old text
  // left off: a copy of it (the file's bytes) or a new line that happens to be alike (as written).
  const bare = unclear ?? parsed.lines.find((line, i) => !copies.has(i) && !isBlank(line) && fuzzy.lines.some((p) => p.given === line && trailingWhitespace(p.given).length < trailingWhitespace(p.file).length)) ?? null;
  if (bare !== null) return { text, lessIndentedLines, unclearCopy: { newLine: bare } };
  if (written.alignedOrDeeper !== null) return { text, lessIndentedLines, ambiguousAlignment: { newLine: written.alignedOrDeeper } };
  if (width !== 'ambiguous') return { text, lessIndentedLines };
  // Both tab widths, each line written exactly as it would be under each (a continued line too).
  const other = writeLines(fuzzy, parsed.lines, copies, padded, new IndentShift(fuzzy, 8)).lines;
  const differing = parsed.lines.find((_, i) => other[i] !== written.lines[i]);
  return differing === undefined ? { text, lessIndentedLines } : { text, lessIndentedLines, ambiguousTabWidth: { newLine: differing } };
}

/**
 * The new text's lines in the file's whitespace under one indentation mapping. `alignedOrDeeper`:
 * a new line that only stands where the old text has an aligned line (tabs, then alignment
 * spaces written as spaces) and has its spaces: an edit of that aligned line or a statement whole
 * tabs deeper, which the spaces cannot tell apart, so the caller refuses.
 */
function writeLines(
  fuzzy: FuzzyAdjustment,
  newLines: string[],
  copies: Map<number, string>,
  padded: boolean,
  shift: IndentShift,
): { lines: string[]; lessIndentedLines: number; alignedOrDeeper: string | null } {
  let lessIndentedLines = 0;
  let alignedBefore: string | null = null;
  let alignedOrDeeper: string | null = null;
  const lines = newLines.map((line, i) => {
    if (fuzzy.keepFirstLine && i === 0) return line;
    const copy = copies.get(i) ?? repeatedLine(fuzzy, line);
    if (copy !== undefined) return copy;
    if (isBlank(line)) return shift.blank(line);
    const ws = leadingWhitespace(line);
    let body = line.slice(ws.length);
    if (padded) body = stripEnd(body);
    // Continued: it follows a line with that indentation (a copy, or a new line written with the
    // same aligned one), or it stands where the old text has a line with it (an aligned line edited).
    const prev = i > 0 ? newLines[i - 1]! : null;
    const follows = prev !== null && !isBlank(prev) && leadingWhitespace(prev) === ws && (copies.has(i - 1) || alignedBefore === ws);
    const stoodFor = prev === null || !copies.has(i - 1) ? [] : fuzzy.lines.flatMap((p, j) => (p.given === prev && leadingWhitespace(fuzzy.lines[j + 1]?.given ?? '') === ws ? [fuzzy.lines[j + 1]?.given ?? ''] : []));
    const standsFor = stoodFor.length > 0;
    const m = shift.apply(ws, follows || standsFor);
    // Standing where an aligned old line was, it is that line edited only when it begins like it
    // (`id);` -> `id,`); another line there may be a statement whole tabs deeper.
    const edited = stoodFor.some((old) => firstWord(old) === firstWord(line));
    if (!follows && standsFor && !edited && m.aligned && shift.apply(ws, false).ws !== m.ws) alignedOrDeeper ??= line;
    alignedBefore = m.aligned ? ws : null;
    if (m.clamped) lessIndentedLines++;
    return m.ws + body;
  });
  return { lines, lessIndentedLines, alignedOrDeeper };
}

/**
 * New-text line index -> the file line it copies (aligned with an old line that the match paired
 * with a file line). Lines align when equal as written or, when the match tolerated whitespace at
 * line ends, equal but for it (the alignment with the most lines equal as written wins).
 * `unclear`: a copy equal only but for that whitespace to its old line, where the file line has
 * other whitespace at its end than the copy, or the old text has that line twice and the file
 * writes the two differently: which bytes it stands for cannot be told.
 */
function copiedLines(fuzzy: FuzzyAdjustment, newLines: string[]): { copies: Map<number, string>; unclear: string | null } {
  const endsTolerated = fuzzy.pairs.some((p) => trailingWhitespace(p.given) !== trailingWhitespace(p.file));
  // Blank lines align with blank lines whatever their whitespace (a model writes them with the
  // indentation around them); among alignments, those pairing lines equal as written, blank ones
  // too, win: a kept blank line is the one the new text writes alike, not the first one.
  const exact = (l: string) => `L${l}`;
  const key = (l: string) => (isBlank(l) ? 'B' : `L${endsTolerated ? stripEnd(l) : l}`);
  const given = fuzzy.lines.map((p) => p.given);
  const aligned = alignLines(given.map(key), newLines.map(key), given.map(exact), newLines.map(exact));
  const copies = new Map<number, string>();
  let unclear: string | null = null;
  aligned.forEach((j, i) => {
    if (j === undefined || (fuzzy.keepFirstLine && i === 0)) return;
    const line = newLines[i]!;
    copies.set(i, fuzzy.lines[j]!.file);
    if (isBlank(line)) return;
    // Equal to its old line only but for the whitespace at its end, and the file line has other
    // whitespace there: an edit of that whitespace or the model's noise, which cannot be told.
    const file = fuzzy.lines[j]!.file;
    if (line !== given[j] && trailingWhitespace(line) !== trailingWhitespace(file)) unclear ??= line;
    // A line the old text has several times, written differently in the file: unless the new text
    // repeats it as often (copies in order), which one a copy stands for cannot be told.
    const olds = fuzzy.lines.filter((p) => key(p.given) === key(line));
    if (new Set(olds.map((p) => p.file)).size > 1 && newLines.filter((l) => key(l) === key(line)).length !== olds.length) unclear ??= line;
  });
  return { copies, unclear };
}

/**
 * A new line written exactly like an old line whose whitespace at its end the file does not have
 * (the model's padding), but not aligned with it (the line repeated, say): the file's line, as for
 * a copy, when the old text has that line once or the file writes every one of them alike.
 */
function repeatedLine(fuzzy: FuzzyAdjustment, line: string): string | undefined {
  if (isBlank(line)) return undefined;
  const files = new Set(fuzzy.lines.filter((p) => p.given === line && trailingWhitespace(p.given).length > trailingWhitespace(p.file).length).map((p) => p.file));
  return files.size === 1 ? [...files][0] : undefined;
}

/**
 * The model padded its whole text: every non-blank old line has more whitespace at its end than
 * its file line, every non-blank line of the new text has some, and every copy more than its file
 * line. Only then is the whitespace at the end of new lines noise; otherwise it is what the model wrote.
 */
function paddedEverywhere(fuzzy: FuzzyAdjustment, newLines: string[], copies: Map<number, string>): boolean {
  const longer = (line: string, file: string) => trailingWhitespace(line).length > trailingWhitespace(file).length;
  if (fuzzy.pairs.length === 0 || !fuzzy.pairs.every((p) => longer(p.given, p.file))) return false;
  return newLines.every((line, i) => {
    if (isBlank(line)) return true;
    const file = copies.get(i);
    return file === undefined ? trailingWhitespace(line) !== '' : longer(line, file);
  });
}

/** Why an unclear copy applied nothing, for the model (`old`/`new` name the fields). */
export function unclearCopyMessage(a: { newLine: string }, old: string, neu: string): string {
  return (
    `${old} did not match exactly (the whitespace at its line ends differs from the file's), and ${neu} has the line ${JSON.stringify(a.newLine)}, ` +
    `which repeats a line of ${old} with other whitespace at its end than the file has there: whether that whitespace is an edit, and which line ` +
    `of the file it stands for, cannot be told, so nothing was changed. ` +
    `Copy ${old} exactly from the file, including the whitespace at line ends.`
  );
}

/** Why an ambiguous tab width applied nothing, for the model (`old`/`new` name the fields). */
export function ambiguousTabWidthMessage(a: { newLine: string }, old: string, neu: string): string {
  return (
    `${old} did not match exactly: it writes the file's tab indentation as spaces and is also shifted, so a tab of 4 and a tab ` +
    `of 8 columns both fit it, and they would indent ${JSON.stringify(a.newLine)} of ${neu} differently: nothing was changed. ` +
    `Write the indentation of ${old} and ${neu} with tabs, as read_file shows the file.`
  );
}

/** Why an aligned-or-deeper new line applied nothing, for the model (`old`/`new` name the fields). */
export function ambiguousAlignmentMessage(a: { newLine: string }, old: string, neu: string): string {
  return (
    `${old} did not match exactly: it writes the file's tab indentation as spaces, and ${neu} has the line ${JSON.stringify(a.newLine)}, ` +
    `indented like a line of ${old} that the file aligns with spaces after its tabs: whether it continues that alignment or is a statement ` +
    `whole tabs deeper cannot be told, so nothing was changed. Write the indentation of ${old} and ${neu} with tabs, as read_file shows the file.`
  );
}

/** The identifier (or first character) a line's content begins with. */
function firstWord(line: string): string {
  return /^[\w$]+|^\S/.exec(line.trimStart())?.[0] ?? '';
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

type Translation = 'spaces_to_tabs' | 'tabs_to_spaces' | null;

/**
 * The indentation (given, file) of each non-blank matched line, and of each whitespace-only line
 * whose whitespace the old text wrote as the file's tabs in spaces (or the reverse, a usual width
 * apart): where the non-blank lines carry no tabs (a closing brace at column 0, a line aligned with
 * spaces), such a blank line is the only sign that the model writes the file's tabs as spaces. A
 * blank line written like another old line that the file indents otherwise is noise and is not used.
 */
function indentPairs(fuzzy: FuzzyAdjustment): [string, string][] {
  const pairs: [string, string][] = fuzzy.pairs.map((p: LinePair) => [leadingWhitespace(p.given), leadingWhitespace(p.file)]);
  const blanks = fuzzy.lines.filter(
    (p) => isBlank(p.given) && isBlank(p.file) && tabsWrittenAsSpaces(p.given, p.file) && !pairs.some(([g, f]) => g === p.given && f !== p.file),
  );
  return [...pairs, ...blanks.map((p): [string, string] => [p.given, p.file])];
}

/** Spaces on one side, tabs on the other, as many spaces as tabs times a usual tab width. */
function tabsWrittenAsSpaces(a: string, b: string): boolean {
  const [spaces, tabs] = /^ +$/.test(a) && /^\t+$/.test(b) ? [a, b] : /^\t+$/.test(a) && /^ +$/.test(b) ? [b, a] : ['', ''];
  return tabs.length > 0 && TAB_WIDTHS.some((w) => spaces.length === tabs.length * w);
}

/**
 * Whether the match measured that the old text wrote the file's tabs as spaces (the file's
 * indentation being tabs, then perhaps alignment spaces) or the file's spaces as tabs.
 */
function translationOf(pairs: [string, string][]): Translation {
  // One prefix added to (or taken off) every indentation is a shift, not a translation: `     `
  // for the file's `\t     ` is the common tab removed, its alignment spaces kept.
  if (pairs.length > 0 && (constantPrefix(pairs) || constantPrefix(pairs.map(([g, f]) => [f, g])))) return null;
  const given = pairs.map(([g]) => g);
  const file = pairs.map(([, f]) => f);
  if (unitOf(given) === 'space' && file.some((f) => f.startsWith('\t')) && file.every((f) => /^\t* *$/.test(f))) return 'spaces_to_tabs';
  if (unitOf(file) === 'space' && given.some((g) => g.startsWith('\t')) && given.every((g) => /^\t* *$/.test(g))) return 'tabs_to_spaces';
  return null;
}

/** Every second indentation is the first one with the same prefix before it. */
function constantPrefix(pairs: [string, string][]): boolean {
  const prefixes = new Set(pairs.map(([a, b]) => (b.endsWith(a) ? b.slice(0, b.length - a.length) : null)));
  return prefixes.size === 1 && !prefixes.has(null);
}

/** The indentation mapping a match measured, applied to one line's indentation. */
class IndentShift {
  private readonly known: Map<string, string>;
  private readonly keys: string[];
  private readonly fileUnit: IndentUnit;
  private readonly translation: Translation;
  /** Some matched line's indentation differs between the old text and the file. */
  private readonly measured: boolean;
  private readonly tabWidth: number;
  private readonly delta: number;
  /** The shift as text, when one indentation ends with the other: a prefix the old text added (removed from new lines) or lacks (added). */
  private readonly removed: string | null;
  private readonly added: string | null;

  constructor(fuzzy: FuzzyAdjustment, tabWidth: number | null) {
    const pairs = indentPairs(fuzzy);
    this.known = consistentMap(pairs);
    this.translation = translationOf(pairs);
    // A deeper line is built on a known indentation; under a translation only on whole tabs (one
    // with alignment after its tabs would carry the alignment into the new line's indentation).
    this.keys = [...this.known.keys()].sort((a, b) => b.length - a.length);
    this.fileUnit = unitOf(this.known.values());
    this.measured = pairs.some(([g, f]) => g !== f);
    this.tabWidth = tabWidth ?? fuzzy.tabWidth ?? measuredTabWidth(pairs) ?? 4;
    this.delta = indentColumns(fuzzy.indentTo, this.tabWidth) - indentColumns(fuzzy.indentFrom, this.tabWidth);
    const [from, to] = [fuzzy.indentFrom, fuzzy.indentTo];
    this.removed = from.length > to.length && from.endsWith(to) ? from.slice(0, from.length - to.length) : null;
    this.added = to.length > from.length && to.endsWith(from) ? to.slice(0, to.length - from.length) : null;
  }

  /**
   * `continued`: the line before it in the new text has the same indentation. Under a translation,
   * an old line's indentation with alignment after its tabs (a call continued) is reused only for
   * such a line; any other line with those spaces is a deeper statement, its spaces whole tabs.
   */
  apply(ws: string, continued = true): { ws: string; clamped: boolean; aligned?: boolean } {
    const exact = this.known.get(ws);
    const aligned = exact !== undefined && this.translation === 'spaces_to_tabs' && !/^\t*$/.test(exact);
    if (exact !== undefined && (continued || !aligned)) return { ws: exact, clamped: false, aligned };
    // Under a translation, an indentation with alignment after its tabs is built on only when the
    // rest does not go on with spaces (a tab after the alignment): otherwise the spaces are whole
    // tabs to translate, and the alignment would be carried into the new line's indentation.
    const buildsOn = (k: string) => this.translation !== 'spaces_to_tabs' || /^\t*$/.test(this.known.get(k)!) || (k !== ws && !ws.slice(k.length).startsWith(' '));
    const key = this.keys.find((k) => ws.startsWith(k) && buildsOn(k));
    if (key !== undefined) return { ws: this.known.get(key)! + this.translate(ws.slice(key.length)), clamped: false };
    if (!this.measured) return { ws, clamped: false };
    // Shallower than every old line: undo the same prefix (`  ` before tabs is not absorbed by a tab stop).
    if (this.removed !== null && ws.startsWith(this.removed)) return { ws: ws.slice(this.removed.length), clamped: false };
    if (this.added !== null && unitOf([ws]) !== 'mixed') return { ws: this.added + ws, clamped: false };
    const columns = indentColumns(ws, this.tabWidth) + this.delta;
    const unit = this.translation === 'spaces_to_tabs' ? 'tab' : this.translation === 'tabs_to_spaces' ? 'space' : this.fileUnit === 'tab' || this.fileUnit === 'space' ? this.fileUnit : unitOf([ws]);
    return { ws: renderColumns(columns, unit, this.tabWidth), clamped: columns < 0 };
  }

  /** A whitespace-only new line: the file's whitespace when it is an indentation the old text used, else as written. */
  blank(line: string): string {
    return line === '' ? line : (this.known.get(line) ?? line);
  }

  /**
   * Relative indentation past a known one, in the file's unit only when the match measured a
   * translation; spaces after tabs are alignment and are kept; otherwise as written.
   */
  private translate(rest: string): string {
    if (this.translation === 'spaces_to_tabs' && /^ *$/.test(rest)) return renderColumns(rest.length, 'tab', this.tabWidth);
    if (this.translation === 'tabs_to_spaces') {
      const tabs = /^\t*/.exec(rest)![0].length;
      return ' '.repeat(tabs * this.tabWidth) + rest.slice(tabs);
    }
    return rest;
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
 * The tab width to re-indent with when the old text wrote the file's tabs as spaces. Every usual
 * width under which the matched lines differ from the file's by one constant is a reading (one
 * depth of 12 spaces for one tab: a tab of 8 shifted by 4, a tab of 4 shifted by 8, ...). The new
 * text's own steps (how far its new lines sit from the old text's indentation, even ones only: an
 * odd step, like a comment's ` * `, is alignment) should be whole tabs of it.
 *
 * A reading under which nothing moved (spaces = tabs x width) is the plain one: it stands unless
 * a step is not whole tabs of it and a tab of 4 or 8, shifted, makes every step whole (a tab
 * written as 8 spaces with 4-space steps is a tab of 4 shifted by 4). Otherwise, tabs of 4 and 8
 * are what tabs are written as; when both are still possible the answer cannot be known, and
 * 'ambiguous' makes the caller refuse. The plain width is returned even where the matcher
 * measured none (an indentation shift of one aligned line: 7 spaces for `\t     ` is a tab of 2).
 * Null: nothing to decide, the matcher's width stands.
 */
function tabWidthOfText(fuzzy: FuzzyAdjustment, newLines: string[], copies: Map<number, string>): number | 'ambiguous' | null {
  const pairs = indentPairs(fuzzy);
  if (translationOf(pairs) !== 'spaces_to_tabs') return null;
  const steps = newLines
    .filter((l, i) => !isBlank(l) && !copies.has(i) && /^ *$/.test(leadingWhitespace(l)))
    .map((l) => leadingWhitespace(l).length - fuzzy.indentFrom.length)
    .filter((d) => d !== 0 && d % 2 === 0);
  const whole = (width: number) => steps.every((d) => d % width === 0);
  const readings = new Map<number, number>();
  for (const width of TAB_WIDTHS) {
    const shifts = new Set(pairs.map(([given, file]) => indentColumns(file, width) - indentColumns(given, width)));
    if (shifts.size === 1) readings.set(width, [...shifts][0]!);
  }
  const plain = [...readings].find(([, shift]) => shift === 0)?.[0];
  if (plain !== undefined) {
    if (whole(plain)) return plain;
    const shifted = [4, 8].filter((w) => w !== plain && readings.has(w) && whole(w));
    return shifted.length === 1 ? shifted[0]! : plain;
  }
  const fitting = [...readings.keys()].filter(whole);
  if (fitting.length === 0) return null;
  // With no even step to decide (none, or only alignment), both still fit: the caller refuses if they indent a new line differently.
  if (fitting.includes(4) && fitting.includes(8)) return 'ambiguous';
  return fitting.includes(4) ? 4 : fitting.includes(8) ? 8 : fitting[0]!;
}
