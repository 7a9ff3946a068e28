/**
 * Locating the text to replace (REQ-PATCH-001/005, and Edit's snippet mode): first an exact search
 * on the canonical LF view; only when the text occurs nowhere, the recovery ladder, one shared by
 * Edit and Patch, from the strictest tolerance to the loosest:
 *
 *   line_end_whitespace  whole lines equal once the whitespace at their ends is ignored
 *   indentation_shift    whole lines equal after removing each side's common indentation: the
 *                        old text was shifted by a constant (spaces or tabs)
 *   tabs_spaces          whole lines equal once their indentation is measured in columns with one
 *                        tab width (4, 8 or 2) and shifted by a constant: tabs written as spaces
 *   boundary_lines       one of the above after leaving out a partial or garbled first and/or last
 *                        line that newText keeps unchanged, when what is left is long enough
 *
 * The old text is tried as given, then without its blank first/last lines, then without its final
 * newline (a last line of the file that has none). Blank lines match blank lines whatever their
 * whitespace. Which interpretation wins when two fit is decided in `recover` (ranked by how much
 * of the old text they explain, then by tolerance; a shorter reading that fits more strictly
 * elsewhere, or the same one fitting more loosely elsewhere, makes both refused). A place must be unique (within the match hint, if any: a hint
 * narrows, never widens), else nothing is applied. Exact matches that occur several times are
 * ambiguous and never resolved by recovery.
 *
 * An exact match that begins after the indentation of its line (old text copied without it) is
 * also reported, as `exact_after_indentation`, so that the new lines get that indentation.
 *
 * What a match learned (which given line stands for which file line) is what adapt-new-text.ts
 * uses to write the new text in the file's own whitespace.
 */
import { describeAdjustment } from './recovery-report';
import { LineIndex, isBlank, splitsSurrogatePair } from './lines';
import { indentColumns, TAB_WIDTHS, trailingWhitespace } from './indent-units';
import { commonIndent, leadingWhitespace } from './reindent';

export type RecoveryLevel = 'exact_after_indentation' | 'line_end_whitespace' | 'indentation_shift' | 'tabs_spaces' | 'boundary_lines';
type LineLevel = 'line_end_whitespace' | 'indentation_shift' | 'tabs_spaces';

/** The old text as lines; `endsWithNewline` means its last line must be followed by a newline. */
export interface NeedleLines {
  lines: string[];
  endsWithNewline: boolean;
}

/** A non-blank line of the old text as given, and the file line it matched. */
export interface LinePair {
  given: string;
  file: string;
}

export interface FuzzyAdjustment {
  level: RecoveryLevel;
  /** How the lines were compared, for boundary_lines (the level of the lines that were kept). */
  lineLevel: LineLevel | null;
  /** One phrase per thing tolerated or adjusted, for the model. */
  adjusted: string[];
  /** `adjusted` joined, for notes. */
  description: string;
  /** Common indentation of the old text's lines and of the file lines they matched. */
  indentFrom: string;
  indentTo: string;
  pairs: LinePair[];
  /** Every line of the old text as matched (blank ones too), in order, with its file line. */
  lines: LinePair[];
  /** The tab width under which tabs and spaces agreed (tabs_spaces), else null. */
  tabWidth: number | null;
  /** Only newText lines after the first get the indentation (exact_after_indentation). */
  keepFirstLine: boolean;
  /** Lines left out at each end (for the authored newText: leave out the same ones). */
  dropLeadingBlank: number;
  dropTrailingBlank: number;
  dropFinalNewline: boolean;
  dropFirstLine: boolean;
  dropLastLine: boolean;
}

export type LocateOutcome =
  | { kind: 'found'; start: number; end: number; fuzzy: FuzzyAdjustment | null }
  | { kind: 'ambiguous'; lines: number[] }
  | { kind: 'not_found'; fuzzyAmbiguousLines: number[] }
  | { kind: 'unclear_indentation'; line: number; indentation: string; newLine: string };

export interface LineSpan {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
}

/** Start offsets of every occurrence of `needle` (overlapping ones too), skipping any that would split an astral character. */
export function findExactMatches(haystack: string, needle: string): number[] {
  const found: number[] = [];
  if (needle === '') return found;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
    if (splitsSurrogatePair(haystack, i) || splitsSurrogatePair(haystack, i + needle.length)) continue;
    found.push(i);
  }
  return found;
}

/**
 * Finds the unique place of LF-only `oldText` in LF-only `haystack`. `newText` is the authored
 * replacement (null when it comes from a clipboard): boundary_lines needs it to check that a
 * left-out line is unchanged, so without it that level is skipped. `within` restricts every level
 * to matches lying entirely inside those lines.
 */
export function locateOldText(
  haystack: string,
  oldText: string,
  newText: string | null,
  index = new LineIndex(haystack),
  within?: LineSpan,
): LocateOutcome {
  const inside = (startLine: number, endLine: number) => within === undefined || (startLine >= within.startLine && endLine <= within.endLine);
  const exact = findExactMatches(haystack, oldText).filter((o) => {
    const r = index.lineRange(o, o + oldText.length);
    return inside(r.startLine, r.endLine);
  });
  if (exact.length === 1) {
    const start = exact[0];
    const blankLine = insideBlankLine(haystack, index, start, oldText);
    if (blankLine !== null && newText !== null) {
      // The old text's blank first line stands for a whole blank line written with more
      // whitespace: matched as whole lines there, so that a copy of it keeps the file's whitespace.
      const whole = recover(index, parseLines(oldText), parseLines(newText), (s) => s === blankLine);
      if (whole.kind === 'found') return whole;
    }
    const unclear = unclearIndentation(haystack, index, start, oldText, newText);
    if (unclear !== null) return unclear;
    const span = wholeLineSpan(haystack, index, start, oldText, newText);
    return { kind: 'found', ...span, fuzzy: indentationBeforeMatch(haystack, index, start, oldText, newText) };
  }
  if (exact.length > 1) return { kind: 'ambiguous', lines: exact.map((o) => index.lineOf(o)) };
  if (within !== undefined && findExactMatches(haystack, oldText).length > 0) return { kind: 'not_found', fuzzyAmbiguousLines: [] };
  return recover(index, parseLines(oldText), newText === null ? null : parseLines(newText), inside);
}

/**
 * An exact match of old text with one non-blank line that begins after whitespace-only text on its
 * line: the old text was copied without the line's indentation, so the lines newText adds after
 * its first need that indentation. Null when there is nothing to adjust.
 */
function indentationBeforeMatch(haystack: string, index: LineIndex, start: number, oldText: string, newText: string | null): FuzzyAdjustment | null {
  if (newText === null) return null;
  const before = indentationBefore(haystack, index, start);
  if (before === null) return null;
  const nonBlank = oldText.split('\n').filter((l) => !isBlank(l));
  if (nonBlank.length !== 1 || !/^[ \t]*\S/.test(oldText)) return null;
  const newLines = newText.split('\n');
  if (!newLines.slice(1).some((l) => !isBlank(l))) return null;
  const given = nonBlank[0];
  const variant = baseVariant(parseLines(oldText));
  const indentFrom = leadingWhitespace(given);
  const lines = variant.needle.lines.map((l, i) => ({ given: l, file: i === 0 ? before + l : l }));
  return finish('exact_after_indentation', null, variant, { pairs: [{ given, file: before + given }], lines, indentFrom, indentTo: before + indentFrom, tabWidth: null }, true);
}

/**
 * An exact match that begins after its line's indentation and runs to the end of that line, with a
 * new text whose first line is blank (a deletion, or a new text that starts with a blank line):
 * the span grows back over the indentation, so the indentation is neither joined with the next
 * line nor left on a blank line. A deletion of the rest of a line without its newline takes the
 * newline too: the whole line goes, not its text alone.
 */
function wholeLineSpan(haystack: string, index: LineIndex, start: number, oldText: string, newText: string | null): { start: number; end: number } {
  const end = start + oldText.length;
  const span = { start, end };
  // A blank first line of the old text is a (part of a) blank line, not the rest of a line after its indentation.
  if (newText === null || !isBlank(newText.split('\n')[0]!) || isBlank(oldText.split('\n')[0]!)) return span;
  const before = indentationBefore(haystack, index, start);
  if (before === null) return span;
  const firstLineEnds = oldText.includes('\n') || end === haystack.length || haystack[end] === '\n';
  if (!firstLineEnds) return span;
  const wholeStart = start - before.length;
  if (newText === '' && !oldText.endsWith('\n') && haystack[end] === '\n') return { start: wholeStart, end: end + 1 };
  return { start: wholeStart, end };
}

/**
 * The 1-based line, when the old text's first line is blank and its exact match begins after
 * whitespace on a whitespace-only line of the file (old `\n}` in a file with `\t\n}`), else null.
 */
function insideBlankLine(haystack: string, index: LineIndex, start: number, oldText: string): number | null {
  if (!oldText.includes('\n') || !isBlank(oldText.slice(0, oldText.indexOf('\n')))) return null;
  if (indentationBefore(haystack, index, start) === null) return null;
  return index.lineOf(start);
}

/** The whitespace-only text between the start of the line holding `start` and `start` (a BOM aside), or null. */
function indentationBefore(haystack: string, index: LineIndex, start: number): string | null {
  const line = index.lineOf(start);
  const lineStart = index.lineStart(line) + (line === 1 && haystack.startsWith('\ufeff') ? 1 : 0);
  const before = haystack.slice(Math.min(lineStart, start), start);
  return /^[ \t]+$/.test(before) ? before : null;
}

/**
 * An exact match of old text with several non-blank lines that begins after the indentation of
 * its line: its other lines carry their own indentation, so new lines are written as given. A new
 * line indented neither at least like the first line in the file nor like another old line (say
 * `int b;` at column 0 after `\tint a;`) could be meant relative to the first line or as written;
 * that cannot be told, so nothing is applied (never unindented code written silently).
 */
function unclearIndentation(haystack: string, index: LineIndex, start: number, oldText: string, newText: string | null): LocateOutcome | null {
  if (newText === null) return null;
  const oldLines = oldText.split('\n');
  const rest = oldLines.slice(1).filter((l) => !isBlank(l));
  if (rest.length === 0 || isBlank(oldLines[0])) return null;
  const before = indentationBefore(haystack, index, start);
  if (before === null) return null;
  const firstIndent = before + leadingWhitespace(oldLines[0]);
  const indents = new Set(rest.map(leadingWhitespace));
  const copies = new Set(rest.map(stripEnd));
  const newLine = newText
    .split('\n')
    .slice(1)
    .find((l) => !isBlank(l) && !copies.has(stripEnd(l)) && !l.startsWith(firstIndent) && !indents.has(leadingWhitespace(l)));
  return newLine === undefined ? null : { kind: 'unclear_indentation', line: index.lineOf(start), indentation: before, newLine };
}

/** Why an unclear_indentation outcome applied nothing, for the model (`old`/`new` name the fields). */
export function unclearIndentationMessage(o: { line: number; indentation: string; newLine: string }, old: string, neu: string): string {
  return (
    `${old} matched exactly at line ${o.line}, but it begins after that line's indentation ${JSON.stringify(o.indentation)} while its other ` +
    `lines carry their own, and ${neu} has the line ${JSON.stringify(o.newLine)}, indented neither like the first line nor like another line ` +
    `of ${old}: whether its indentation is relative to the first line or as written cannot be told, so nothing was changed. ` +
    `Include the first line's indentation (${JSON.stringify(o.indentation)}) in both ${old} and ${neu}.`
  );
}

interface Variant {
  needle: NeedleLines;
  /** boundary_lines: the file line just before / after the match must equal this (trimmed); see boundaryGroups. */
  lineBefore?: string;
  lineAfter?: string;
  dropLeadingBlank: number;
  dropTrailingBlank: number;
  dropFinalNewline: boolean;
  dropFirstLine: boolean;
  dropLastLine: boolean;
}

interface Window {
  startLine: number;
  endLine: number;
  start: number;
  end: number;
  pairs: LinePair[];
  lines: LinePair[];
  indentFrom: string;
  indentTo: string;
  tabWidth: number | null;
  /**
   * The old text's first line matched the end of a file line, or its last line (given without a
   * final newline) the start of one: the exact rule counts such a place, so recovery must too
   * (a candidate for ambiguity), but it is never applied as a whole-line match.
   */
  partial: boolean;
}

const LINE_LEVELS: readonly LineLevel[] = ['line_end_whitespace', 'indentation_shift', 'tabs_spaces'];
/** What must be left after leaving out boundary lines: two non-blank lines and this much content. */
const MIN_KEPT_LINES = 2;
const MIN_KEPT_CHARS = 12;

/**
 * The ladder. An interpretation is a shape of the old text (every line as given; without blank
 * end lines; without the final newline; without a first/last line) compared at one whitespace
 * tolerance. Shapes are ranked by how much of the old text they explain, tolerances from the
 * strictest. The first interpretation that places the text wins, if it places it at exactly one
 * place and no other interpretation that fits is better on either count: one that explains less
 * but fits with a stricter tolerance at another place is a second reading of the text, and both
 * are refused, naming both places. So is the same reading at a looser tolerance at another place
 * (trailing spaces added at one place, or a tab removed as well at another: the whitespace cannot
 * tell), a line cut inside its indentation for a whitespace-only first line matched to a blank
 * line (see cutFirstLineRivals), and a place the exact rule would count (the old text's first line matching after a
 * line's start, as `foo\n` matches `    foo\n`) when the match is elsewhere.
 */
function recover(index: LineIndex, needle: NeedleLines, authored: NeedleLines | null, inside: (s: number, e: number) => boolean): LocateOutcome {
  const finder = new WindowFinder(index, inside);
  const trimmed = blankTrimmed(needle);
  const ranks: Variant[][] = [
    ...shapeVariants(needle, authored).map((v) => [v]),
    ...(authored === null ? [] : boundaryGroups(keepsBlankLines(trimmed, authored) ? trimmed : baseVariant(needle), authored)),
  ];
  let partial: Window | null = null;
  for (const [rank, group] of ranks.entries()) {
    for (const [l, level] of LINE_LEVELS.entries()) {
      const hit = attempt(finder, index, group, level, rank === 0);
      if (hit.kind === 'none') continue;
      if (hit.kind === 'many') return ambiguous(hit.lines);
      if (hit.window.partial) {
        partial = hit.window;
        continue;
      }
      const w = hit.window;
      const rivals = partial !== null && !overlaps(partial, w) ? [partial.startLine] : [];
      // Interpretations that explain less but fit with a stricter tolerance, at another place.
      for (const shorter of ranks.slice(rank + 1)) {
        for (const stricter of LINE_LEVELS.slice(0, l)) {
          const other = attempt(finder, index, shorter, stricter, false);
          if (other.kind === 'many') rivals.push(...other.lines);
          else if (other.kind === 'one' && !overlaps(other.window, w)) rivals.push(other.window.startLine);
        }
      }
      // The same reading at a looser tolerance, at another place (`\t}\n}\n` with trailing spaces added,
      // or with a tab removed from `\t\t}\n\t}\n`): the whitespace cannot tell which one was meant.
      for (const looser of LINE_LEVELS.slice(l + 1)) {
        const other = attempt(finder, index, group, looser, false);
        if (other.kind === 'many') rivals.push(...other.lines.filter((line) => line !== w.startLine));
        else if (other.kind === 'one' && other.window.startLine !== w.startLine) rivals.push(other.window.startLine);
      }
      rivals.push(...cutFirstLineRivals(finder, index, hit.variant, level, w));
      if (rivals.length > 0) return ambiguous([w.startLine, ...rivals]);
      const boundary = hit.variant.dropFirstLine || hit.variant.dropLastLine;
      const span = joinsFirstLine(index, w, hit.variant, authored) ? { ...w, start: w.start - 1 } : w;
      return found(span, finish(boundary ? 'boundary_lines' : level, boundary ? level : null, hit.variant, w, false));
    }
  }
  return { kind: 'not_found', fuzzyAmbiguousLines: partial === null ? [] : [partial.startLine] };
}

/**
 * A whitespace-only first line of the old text matched to a blank file line written otherwise may
 * be a blank line written with indentation, or a line cut inside its indentation: the places where
 * the rest follows a line that begins with that whitespace are the second reading.
 */
function cutFirstLineRivals(finder: WindowFinder, index: LineIndex, v: Variant, level: LineLevel, w: Window): number[] {
  const [first, ...rest] = v.needle.lines;
  if (v.dropFirstLine || first === undefined || first === '' || !isBlank(first) || w.lines[0]?.file === first || !rest.some((l) => !isBlank(l))) return [];
  return finder
    .find({ lines: rest, endsWithNewline: v.needle.endsWithNewline }, level, false, false)
    .filter((r) => r.startLine > 1 && r.startLine - 1 !== w.startLine && !isBlank(index.lineText(r.startLine - 1)) && index.lineText(r.startLine - 1).startsWith(first))
    .map((r) => r.startLine - 1);
}

type Attempt = { kind: 'none' } | { kind: 'many'; lines: number[] } | { kind: 'one'; variant: Variant; window: Window };

/**
 * One interpretation: the variants of a group (a boundary group may leave out the first or the
 * last line) compared at one level. Several places are `many`; so are two variants of one group
 * that place the text at different places.
 */
function attempt(finder: WindowFinder, index: LineIndex, group: Variant[], level: LineLevel, asGiven: boolean): Attempt {
  const hits: { variant: Variant; window: Window }[] = [];
  for (const variant of group) {
    const open = asGiven && level === 'line_end_whitespace';
    const windows = finder.find(variant.needle, level, open, open && !variant.needle.endsWithNewline).filter((w) => boundaryAgrees(index, w, variant));
    if (windows.length > 1) return { kind: 'many', lines: windows.map((w) => w.startLine) };
    if (windows.length === 1) hits.push({ variant, window: windows[0]! });
  }
  if (hits.length === 0) return { kind: 'none' };
  const first = hits[0]!;
  const elsewhere = hits.filter((h) => !overlaps(h.window, first.window));
  if (elsewhere.length > 0) return { kind: 'many', lines: [first, ...elsewhere].map((h) => h.window.startLine) };
  return { kind: 'one', ...first };
}

/**
 * A first line left out (the new text keeps it) whose new text is that line alone, for an old text
 * whose last line has no newline after it: `X\nA\nB` -> `X` removes the newline after X too, so
 * the replaced span starts at that newline (else the lines after X would leave it behind).
 */
function joinsFirstLine(index: LineIndex, w: Window, v: Variant, authored: NeedleLines | null): boolean {
  if (authored === null || !v.dropFirstLine || v.needle.endsWithNewline || w.start === 0 || index.text[w.start - 1] !== '\n') return false;
  let rest = dropBlank(authored, v.dropLeadingBlank, v.dropTrailingBlank).lines.slice(1);
  if (v.dropLastLine) rest = rest.slice(0, -1);
  return rest.length === 0;
}

function overlaps(a: Pick<Window, 'startLine' | 'endLine'>, b: Pick<Window, 'startLine' | 'endLine'>): boolean {
  return a.startLine <= b.endLine && b.startLine <= a.endLine;
}

function ambiguous(lines: number[]): LocateOutcome {
  return { kind: 'not_found', fuzzyAmbiguousLines: [...new Set(lines)].sort((a, b) => a - b) };
}

function found(window: Window, fuzzy: FuzzyAdjustment): LocateOutcome {
  return { kind: 'found', start: window.start, end: window.end, fuzzy };
}

/** Splits LF-only text into lines. */
export function parseLines(text: string): NeedleLines {
  const endsWithNewline = text.endsWith('\n');
  const body = endsWithNewline ? text.slice(0, -1) : text;
  return { lines: body.split('\n'), endsWithNewline };
}

/** The inverse of parseLines. */
export function joinLines(n: NeedleLines): string {
  if (n.lines.length === 0) return '';
  return n.lines.join('\n') + (n.endsWithNewline ? '\n' : '');
}

/** Removes up to `leading`/`trailing` blank lines; removing a last line leaves the one before it newline-terminated. */
export function dropBlank(n: NeedleLines, leading: number, trailing: number): NeedleLines {
  let lines = n.lines;
  let endsWithNewline = n.endsWithNewline;
  let l = 0;
  while (l < leading && l < lines.length && isBlank(lines[l])) l++;
  lines = lines.slice(l);
  let t = 0;
  while (t < trailing && t < lines.length && isBlank(lines[lines.length - 1 - t])) t++;
  if (t > 0) {
    lines = lines.slice(0, lines.length - t);
    endsWithNewline = true;
  }
  return { lines, endsWithNewline };
}

function baseVariant(needle: NeedleLines): Variant {
  return { needle, dropLeadingBlank: 0, dropTrailingBlank: 0, dropFinalNewline: false, dropFirstLine: false, dropLastLine: false };
}

/** The old text without its blank first and last lines. */
function blankTrimmed(needle: NeedleLines): Variant {
  let leading = 0;
  while (leading < needle.lines.length && isBlank(needle.lines[leading])) leading++;
  let trailing = 0;
  while (trailing < needle.lines.length - leading && isBlank(needle.lines[needle.lines.length - 1 - trailing])) trailing++;
  return { ...baseVariant(needle), needle: dropBlank(needle, leading, trailing), dropLeadingBlank: leading, dropTrailingBlank: trailing };
}

/**
 * Ignoring blank lines at the ends of the old text is safe only when the new text keeps them (at
 * least as many at each end): otherwise they are lines the edit deletes.
 */
function keepsBlankLines(trimmed: Variant, authored: NeedleLines | null): boolean {
  if (authored === null) return true;
  const t = blankTrimmed(authored);
  return t.dropLeadingBlank >= trimmed.dropLeadingBlank && t.dropTrailingBlank >= trimmed.dropTrailingBlank;
}

/** The old text as given, without its blank first/last lines (when the new text keeps them), and without its final newline. */
function shapeVariants(needle: NeedleLines, authored: NeedleLines | null): Variant[] {
  const base = baseVariant(needle);
  const out = [base];
  let trimmed = blankTrimmed(needle);
  if (!keepsBlankLines(trimmed, authored)) trimmed = base;
  if (trimmed.dropLeadingBlank + trimmed.dropTrailingBlank > 0) out.push(trimmed);
  if (trimmed.needle.endsWithNewline) out.push({ ...trimmed, needle: { ...trimmed.needle, endsWithNewline: false }, dropFinalNewline: true });
  return out.filter((v) => v.needle.lines.some((l) => !isBlank(l)));
}

/**
 * Leaving out a first and/or last line is safe only when newText keeps it unchanged (so the edit
 * does not depend on it) and enough specific text is left to place the edit.
 */
function boundaryGroups(shape: Variant, authored: NeedleLines): Variant[][] {
  const newLines = dropBlank(authored, shape.dropLeadingBlank, shape.dropTrailingBlank).lines;
  const lines = shape.needle.lines;
  if (lines.length < 2 || newLines.length === 0) return [];
  const [first, last] = [lines[0], lines[lines.length - 1]];
  const [newFirst, newLast] = [newLines[0], newLines[newLines.length - 1]];
  // Kept: newText repeats the line, or writes out in full the line the old text gives cut short
  // (then the file's line must be that full line).
  const firstKept = first === newFirst || isCutOf(first, newFirst);
  const lastKept = last === newLast || isCutOf(last, newLast);
  const before = first === newFirst ? {} : { lineBefore: newFirst.trim() };
  const after = last === newLast ? {} : { lineAfter: newLast.trim() };
  const withoutFirst: Variant = { ...shape, ...before, needle: { ...shape.needle, lines: lines.slice(1) }, dropFirstLine: true };
  const withoutLast: Variant = { ...shape, ...after, needle: { lines: lines.slice(0, -1), endsWithNewline: true }, dropLastLine: true };
  const withoutBoth: Variant = { ...withoutFirst, ...after, needle: { lines: lines.slice(1, -1), endsWithNewline: true }, dropLastLine: true };
  const single = [firstKept ? withoutFirst : null, lastKept ? withoutLast : null].filter((v): v is Variant => v !== null && specific(v.needle));
  const groups = single.length > 0 ? [single] : [];
  if (firstKept && lastKept && lines.length >= 3 && newLines.length >= 2 && specific(withoutBoth.needle)) groups.push([withoutBoth]);
  return groups;
}

/** `cut` is a start or an end of the longer line `full` (whitespace aside; a cut inside the indentation leaves only whitespace). */
function isCutOf(cut: string, full: string): boolean {
  const [c, f] = [cut.trim(), full.trim()];
  return cut.length > 0 && f.length > c.length && (f.startsWith(c) || f.endsWith(c));
}

/** A window found without a cut boundary line must sit next to the full line newText gives for it. */
function boundaryAgrees(index: LineIndex, w: Window, v: Variant): boolean {
  if (v.lineBefore !== undefined && (w.startLine < 2 || index.lineText(w.startLine - 1).trim() !== v.lineBefore)) return false;
  if (v.lineAfter !== undefined && (w.endLine >= index.lineCount || index.lineText(w.endLine + 1).trim() !== v.lineAfter)) return false;
  return true;
}

function specific(n: NeedleLines): boolean {
  const content = n.lines.filter((l) => !isBlank(l));
  return content.length >= MIN_KEPT_LINES && content.reduce((sum, l) => sum + l.replace(/\s+/g, '').length, 0) >= MIN_KEPT_CHARS;
}

function finish(level: RecoveryLevel, lineLevel: LineLevel | null, variant: Variant, window: Omit<WindowMatch, 'partial'>, keepFirstLine: boolean): FuzzyAdjustment {
  const base = {
    level,
    lineLevel,
    indentFrom: window.indentFrom,
    indentTo: window.indentTo,
    pairs: window.pairs,
    lines: window.lines,
    tabWidth: window.tabWidth,
    keepFirstLine,
    dropLeadingBlank: variant.dropLeadingBlank,
    dropTrailingBlank: variant.dropTrailingBlank,
    dropFinalNewline: variant.dropFinalNewline,
    dropFirstLine: variant.dropFirstLine,
    dropLastLine: variant.dropLastLine,
  };
  const adjusted = describeAdjustment(base);
  return { ...base, adjusted, description: adjusted.join('; ') };
}

function stripEnd(line: string): string {
  return line.slice(0, line.length - trailingWhitespace(line).length);
}

/** Finds windows of whole file lines that match a needle at one level; candidates come from a native search for the needle's most specific line. */
class WindowFinder {
  private readonly candidates = new Map<string, number[]>();

  constructor(
    private readonly index: LineIndex,
    private readonly inside: (startLine: number, endLine: number) => boolean,
  ) {}

  /**
   * `openStart`: the first line may also match the end of a file line; `openEnd`: the last line
   * (the needle has no final newline) may also match the start of one. Such windows are `partial`.
   */
  find(needle: NeedleLines, level: LineLevel, openStart: boolean, openEnd: boolean): Window[] {
    const k = needle.lines.length;
    const nonBlank = needle.lines.map((l) => !isBlank(l));
    const open = (i: number) => (openStart && i === 0) || (openEnd && i === k - 1);
    let anchor = -1;
    const better = (i: number) => anchor === -1 || (open(anchor) && !open(i)) || (open(anchor) === open(i) && needle.lines[i].trim().length > needle.lines[anchor].trim().length);
    for (let i = 0; i < k; i++) if (nonBlank[i] && better(i)) anchor = i;
    if (anchor === -1) return [];
    const matcher = new LineMatcher(needle.lines, nonBlank, level, openStart, openEnd);
    const windows: Window[] = [];
    const trimmedAnchor = needle.lines[anchor].trim();
    for (const line of open(anchor) ? this.linesContaining(trimmedAnchor) : this.linesHolding(trimmedAnchor)) {
      const first = line - anchor;
      const last = first + k - 1;
      if (first < 1 || last > this.index.lineCount) continue;
      if (needle.endsWithNewline && !this.index.hasTerminator(last)) continue;
      if (!this.inside(first, last)) continue;
      const fileLines: string[] = [];
      for (let i = 0; i < k; i++) fileLines.push(this.lineText(first + i));
      const m = matcher.match(fileLines);
      if (m === null) continue;
      const start = this.index.lineStart(first) + (first === 1 ? this.bom : 0);
      const end = this.index.lineContentEnd(last) + (needle.endsWithNewline ? 1 : 0);
      windows.push({ startLine: first, endLine: last, start, end, ...m });
    }
    return windows;
  }

  /** A byte order mark belongs to the file, not to line 1: it is never matched or replaced. */
  private get bom(): number {
    return this.index.text.startsWith('\ufeff') ? 1 : 0;
  }

  private lineText(line: number): string {
    const text = this.index.lineText(line);
    return line === 1 ? text.slice(this.bom) : text;
  }

  /** 1-based lines whose trimmed text is `trimmed`, in order. */
  private linesHolding(trimmed: string): number[] {
    return this.search(trimmed, true);
  }

  /** 1-based lines that contain `trimmed`, in order. */
  private linesContaining(trimmed: string): number[] {
    return this.search(trimmed, false);
  }

  private search(trimmed: string, whole: boolean): number[] {
    const key = `${whole ? 'w' : 'c'}${trimmed}`;
    const cached = this.candidates.get(key);
    if (cached !== undefined) return cached;
    const text = this.index.text;
    const lines: number[] = [];
    for (let i = text.indexOf(trimmed); i !== -1; i = text.indexOf(trimmed, i + 1)) {
      const line = this.index.lineOf(i);
      if (lines[lines.length - 1] !== line && (!whole || this.lineText(line).trim() === trimmed)) lines.push(line);
      // Skip to the next line: one hit per line is enough.
      const next = this.index.lineContentEnd(line) + 1;
      if (next > i + 1) i = next - 1;
    }
    this.candidates.set(key, lines);
    return lines;
  }
}

type WindowMatch = Pick<Window, 'pairs' | 'lines' | 'indentFrom' | 'indentTo' | 'tabWidth' | 'partial'>;

/** Compares the needle's lines with a window of file lines at one level. */
class LineMatcher {
  private readonly stripped: string[];
  private readonly needleIndent: string;
  private readonly rests: string[];
  private readonly contents: string[];

  constructor(
    private readonly lines: string[],
    private readonly nonBlank: boolean[],
    private readonly level: LineLevel,
    private readonly openStart: boolean,
    private readonly openEnd: boolean,
  ) {
    this.stripped = lines.map(stripEnd);
    this.needleIndent = commonIndent(this.stripped.filter((_, i) => nonBlank[i]));
    this.rests = this.stripped.map((l) => l.slice(this.needleIndent.length));
    this.contents = this.stripped.map((l) => l.trimStart());
  }

  match(fileLines: string[]): WindowMatch | null {
    const { nonBlank } = this;
    for (let i = 0; i < nonBlank.length; i++) if (nonBlank[i] === isBlank(fileLines[i])) return null;
    const fileStripped = fileLines.map(stripEnd);
    const pairs: LinePair[] = [];
    for (let i = 0; i < nonBlank.length; i++) if (nonBlank[i]) pairs.push({ given: this.lines[i], file: fileLines[i] });
    const lines = this.lines.map((given, i) => ({ given, file: fileLines[i]! }));
    const fileIndent = commonIndent(fileStripped.filter((_, i) => nonBlank[i]));
    const result = (tabWidth: number | null, partial = false): WindowMatch => ({ pairs, lines, indentFrom: this.needleIndent, indentTo: fileIndent, tabWidth, partial });

    if (this.level === 'line_end_whitespace') {
      let partial = false;
      for (let i = 0; i < nonBlank.length; i++) {
        if (!nonBlank[i] || fileStripped[i] === this.stripped[i]) continue;
        if (!this.partlyEqual(i, fileLines[i]!, fileStripped[i]!)) return null;
        partial = true;
      }
      return result(null, partial);
    }
    if (this.level === 'indentation_shift') {
      for (let i = 0; i < nonBlank.length; i++) if (nonBlank[i] && fileStripped[i].slice(fileIndent.length) !== this.rests[i]) return null;
      return result(null);
    }
    for (let i = 0; i < nonBlank.length; i++) if (nonBlank[i] && fileStripped[i].trimStart() !== this.contents[i]) return null;
    const width = this.tabWidthFor(fileStripped);
    return width === null ? null : result(width);
  }

  /** Line `i` of the needle equals part of the file line as the exact rule allows: the end of the first line, the start of an open last line. */
  private partlyEqual(i: number, file: string, fileStripped: string): boolean {
    const given = this.stripped[i]!;
    const first = this.openStart && i === 0;
    const last = this.openEnd && i === this.lines.length - 1;
    if (first && last) return file.includes(given);
    if (first) return fileStripped.endsWith(given);
    if (last) return file.startsWith(given);
    return false;
  }

  /** The tab width under which every line's indentation differs from the file's by one constant (no difference preferred). */
  private tabWidthFor(fileStripped: string[]): number | null {
    let shifted: number | null = null;
    for (const width of TAB_WIDTHS) {
      let delta: number | null = null;
      let constant = true;
      for (let i = 0; i < this.nonBlank.length && constant; i++) {
        if (!this.nonBlank[i]) continue;
        const d = indentColumns(leadingWhitespace(fileStripped[i]), width) - indentColumns(leadingWhitespace(this.stripped[i]), width);
        if (delta === null) delta = d;
        else if (d !== delta) constant = false;
      }
      if (!constant) continue;
      if (delta === 0) return width;
      shifted ??= width;
    }
    return shifted;
  }
}
